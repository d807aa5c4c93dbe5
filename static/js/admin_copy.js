// Admin: a "Copy to clipboard" button copies the field it names (data-copy) and says so in
// its status (data-copied-for). Without the clipboard (an http address other than localhost),
// the text is selected for the organizer to copy. The status says so in the page's language:
// its data-copied and data-selected attributes hold the words.
document.addEventListener("click", function (event) {
  var button = event.target.closest("button[data-copy]");
  if (!button) return;
  var field = document.getElementById(button.dataset.copy);
  var status = document.querySelector('[data-copied-for="' + button.dataset.copy + '"]');
  var copied = status.dataset.copied || "Copied.";
  var selected = status.dataset.selected || "Selected: press Ctrl+C (⌘C) to copy.";
  field.select();
  if (!navigator.clipboard) {
    status.textContent = selected;
    return;
  }
  navigator.clipboard.writeText(field.value).then(
    function () { status.textContent = copied; },
    function () { status.textContent = selected; }
  );
});
