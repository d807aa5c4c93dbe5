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

  document.querySelectorAll("form.tz-form").forEach(enhanceTimeZoneForm);
})();
