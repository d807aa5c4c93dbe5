// Progressive enhancement only: every control works without this file.
(function () {
  "use strict";

  // Move the device's own time zone up, second in the zone picker after the conference's. The
  // choice applies on the form's button, never on change: arrowing through the list must not
  // reload the page (WCAG 3.2.2).
  function enhanceTimeZoneForm(form) {
    var select = form.querySelector("select[name=tz]");
    if (!select) return;
    var deviceZone;
    try {
      deviceZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    } catch (error) {
      deviceZone = null;
    }
    if (!deviceZone || deviceZone === form.dataset.conferenceZone) return;
    var existing = Array.prototype.find.call(select.options, function (option) {
      return option.value === deviceZone;
    });
    if (existing) {
      existing.textContent = deviceZone + " (your device)";
      select.insertBefore(existing, select.options[0].nextSibling);
    }
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
