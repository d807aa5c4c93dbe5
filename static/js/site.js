// Progressive enhancement only: every control works without this file.
(function () {
  "use strict";

  // Put the device's own time zone first in the zone picker, above the conference's (added when
  // the list has no entry for it: the server accepts every zone name). The choice applies on the form's button, never on change:
  // arrowing through the list must not reload the page (WCAG 3.2.2).
  function enhanceTimeZoneForm(form) {
    var select = form.querySelector("select[name=tz]");
    if (!select) return;
    var deviceZone;
    try {
      deviceZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    } catch (error) {
      deviceZone = null;
    }
    if (!deviceZone || deviceZone === "Etc/Unknown" || deviceZone === form.dataset.conferenceZone) return;
    var options = Array.prototype.slice.call(select.options);
    var deviceCanonical = canonicalZone(deviceZone);
    var existing =
      options.find(function (option) {
        return option.value === deviceZone;
      }) ||
      // Browsers may name the zone by an old name the list leaves out (Chromium says
      // Asia/Calcutta for Asia/Kolkata): find the entry the browser takes for the same zone.
      options.find(function (option) {
        return option.value !== form.dataset.conferenceZone && canonicalZone(option.value) === deviceCanonical;
      });
    var option = existing || new Option(deviceZone, deviceZone);
    option.textContent = option.value + " (your device)";
    select.insertBefore(option, select.firstElementChild);
  }

  function canonicalZone(name) {
    try {
      return new Intl.DateTimeFormat("en", { timeZone: name }).resolvedOptions().timeZone;
    } catch (error) {
      return null;
    }
  }

  // A Copy button beside a text field (data-copy: the field's id; data-copy-status: where to say
  // it worked, in the words its data-copied and data-not-copied give in the page's language). It
  // stays hidden where the clipboard cannot be written (no API, or a page not served over
  // HTTPS): the field's text can still be selected and copied by hand.
  function enhanceCopyButton(button) {
    var field = document.getElementById(button.dataset.copy);
    var status = document.getElementById(button.dataset.copyStatus);
    if (!field || !status || !navigator.clipboard || !window.isSecureContext) return;
    if (!status.dataset.copied || !status.dataset.notCopied) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(field.value).then(
        function () {
          status.textContent = status.dataset.copied;
        },
        function () {
          field.focus();
          field.select();
          status.textContent = status.dataset.notCopied;
        }
      );
    });
  }

  // A link to a control folded in a <details> (a session page's "Change the time zone" leads to
  // the list's picker behind "Time zone") opens it: Chromium does so itself, not every browser.
  function openFoldedTarget() {
    var target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    var folded = target && target.closest("details:not([open])");
    if (!folded) return;
    folded.open = true;
    target.scrollIntoView({ block: "center" });
  }

  document.querySelectorAll("form.tz-form").forEach(enhanceTimeZoneForm);
  openFoldedTarget();
  window.addEventListener("hashchange", openFoldedTarget);
  document.querySelectorAll("button[data-copy]").forEach(enhanceCopyButton);
})();
