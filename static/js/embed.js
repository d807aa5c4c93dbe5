// The embeddable schedule (sessions/views/embed.py) tells the page that frames it how tall it is, so
// that page's snippet (shown in the conference's admin) can make the frame as tall as its
// content. Only a height and this page's address are sent: nothing the world may not read.
(function () {
  "use strict";
  if (window.parent === window) return;
  var sent = 0;
  function tell() {
    var height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === sent) return;
    sent = height;
    window.parent.postMessage({ type: "confsched:height", height: height, href: location.href }, "*");
  }
  new ResizeObserver(tell).observe(document.documentElement);
  window.addEventListener("load", tell);
})();
