// The review page (sessions/cfp/admin/review_page.py): scoring from the keyboard. A digit
// typed anywhere but in a text field chooses that score; Enter on a score saves it and opens
// the next proposal not yet reviewed (the form's first button). The radio buttons still work
// alone: without this file, Tab and the arrow keys reach them and Enter submits.
(function () {
  "use strict";
  var form = document.getElementById("review-form");
  if (!form) return;

  function typing(target) {
    var tag = target.tagName;
    return tag === "TEXTAREA" || tag === "SELECT" || (tag === "INPUT" && target.type !== "radio") || target.isContentEditable;
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    if (/^[0-9]$/.test(event.key)) {
      var radio = form.querySelector('input[name="score"][value="' + event.key + '"]');
      if (radio) {
        radio.checked = true;
        radio.focus();
        event.preventDefault();
      }
    } else if (event.key === "Enter" && event.target.name === "score") {
      event.preventDefault();
      var next = form.querySelector('input[type="submit"][name="_next"]');
      if (form.requestSubmit) form.requestSubmit(next); else next.click();
    }
  });
})();
