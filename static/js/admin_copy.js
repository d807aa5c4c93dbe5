// Admin: a "Copy to clipboard" button copies the field it names (data-copy) and says so in
// its status (data-copied-for). Without the clipboard (an http address other than localhost),
// the text is selected for the organizer to copy.
document.addEventListener("click", function (event) {
  var button = event.target.closest("button[data-copy]");
  if (!button) return;
  var field = document.getElementById(button.dataset.copy);
  var status = document.querySelector('[data-copied-for="' + button.dataset.copy + '"]');
  field.select();
  if (!navigator.clipboard) {
    status.textContent = "Selected: press Ctrl+C (⌘C) to copy.";
    return;
  }
  navigator.clipboard.writeText(field.value).then(
    function () { status.textContent = "Copied."; },
    function () { status.textContent = "Selected: press Ctrl+C (⌘C) to copy."; }
  );
});
