// Progressive enhancement only: every control works without this file.
(function () {
  "use strict";

  // Offer the browser's own time zone first in the zone picker, and apply a choice at once.
  function enhanceTimeZoneForm(form) {
    var select = form.querySelector("select[name=tz]");
    if (!select) return;
    var browserZone;
    try {
      browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    } catch (error) {
      browserZone = null;
    }
    if (browserZone && browserZone !== form.dataset.conferenceZone) {
      var existing = Array.prototype.find.call(select.options, function (option) {
        return option.value === browserZone;
      });
      if (existing) {
        var mine = existing.cloneNode(true);
        mine.selected = false;
        mine.textContent = browserZone + " (your device)";
        select.insertBefore(mine, select.options[1] || null);
      }
    }
    select.addEventListener("change", function () {
      form.submit();
    });
  }

  // A Copy button beside a text field (data-copy: the field's id; data-copy-status: where to say
  // it worked). It stays hidden where the clipboard cannot be written (no API, or a page not
  // served over HTTPS): the field's text can still be selected and copied by hand.
  function enhanceCopyButton(button) {
    var field = document.getElementById(button.dataset.copy);
    var status = document.getElementById(button.dataset.copyStatus);
    if (!field || !status || !navigator.clipboard || !window.isSecureContext) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(field.value).then(
        function () {
          status.textContent = "Copied.";
        },
        function () {
          field.focus();
          field.select();
          status.textContent = "Could not copy: the address is selected, copy it with your keyboard.";
        }
      );
    });
  }

  document.querySelectorAll("form.tz-form").forEach(enhanceTimeZoneForm);
  document.querySelectorAll("button[data-copy]").forEach(enhanceCopyButton);
})();
