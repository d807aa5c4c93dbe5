// Offline at the venue (README "At the venue / offline"): registers the service worker, says when
// a page is the copy kept from an earlier visit, and explains a Save that could not reach us.
// Progressive enhancement: without it, pages simply need the network, as before.
(function () {
  "use strict";

  // The notice's words come translated from the page (templates/base.html: data-kept-at, with
  // {time} for the clock); the clock is written in the page's language and the zone its times
  // show in (data-zone: the visitor's chosen zone, else the conference's), else the device's.
  function keptClock(notice, keptAt) {
    var options = { hour: "2-digit", minute: "2-digit", hourCycle: "h23" };
    if (notice.dataset.zone) options.timeZone = notice.dataset.zone;
    try {
      return new Intl.DateTimeFormat(document.documentElement.lang || undefined, options).format(keptAt);
    } catch (error) {
      // A zone this browser does not know: the device's clock.
      delete options.timeZone;
      return new Intl.DateTimeFormat(undefined, options).format(keptAt);
    }
  }

  function showOfflineNotice(fetchedAt) {
    var notice = document.getElementById("offline-notice");
    if (!notice) return;
    var text = notice.querySelector("p");
    var keptAt = fetchedAt ? new Date(fetchedAt) : null;
    text.textContent = keptAt
      ? text.dataset.keptAt.replace("{time}", keptClock(text, keptAt))
      : text.dataset.kept;
    notice.hidden = false;
  }

  // What this page loaded (styles, scripts, images), for the worker to keep with the page.
  function loadedResources() {
    return performance
      .getEntriesByType("resource")
      .filter(function (entry) {
        return ["link", "script", "css", "img"].indexOf(entry.initiatorType) !== -1;
      })
      .map(function (entry) {
        return entry.name;
      });
  }

  function askWorker(registration) {
    var channel = new MessageChannel();
    channel.port1.onmessage = function (event) {
      if ("conferenceStored" in event.data) {
        // Every page of the conference is kept (or could not be: offline, saving data).
        document.documentElement.dataset.offlineConference = event.data.conferenceStored ? "stored" : "incomplete";
        return;
      }
      if (event.data.fromCopy) showOfflineNotice(event.data.fetchedAt);
      // Browser tests wait for this before going offline.
      document.documentElement.dataset.offlineReady = "true";
    };
    var offlinePage = document.querySelector('meta[name="offline-page"]');
    var conferenceManifest = document.querySelector('meta[name="offline-manifest"]');
    registration.active.postMessage(
      {
        type: "page-shown",
        url: location.href,
        resources: loadedResources(),
        offlinePage: offlinePage ? offlinePage.content : null,
        conferenceManifest: conferenceManifest ? conferenceManifest.content : null,
      },
      [channel.port2]
    );
  }

  var worker = document.querySelector('meta[name="service-worker"]');
  if (worker && "serviceWorker" in navigator) {
    navigator.serviceWorker.register(worker.content, { scope: "/" }).catch(function () {
      // Not allowed here (e.g. plain http on another host): pages work online as before.
    });
    navigator.serviceWorker.ready.then(askWorker);
  }

  // A Save button (templates/sessions/includes/save_toggle.html) whose request failed: say so
  // beside it. The button is left in place, so it keeps the focus and can be pressed again.
  // The page's Save form sent the request; the button that submitted it names the toggle.
  function sayBesideSaveButton(detail, text) {
    var event = detail.requestConfig && detail.requestConfig.triggeringEvent;
    var button = (event && event.submitter) || detail.elt;
    var toggle = button.closest && button.closest(".save-toggle");
    if (!toggle) return;
    var note = toggle.querySelector(".save-error");
    if (!note) {
      note = document.createElement("span");
      note.className = "save-error";
      note.setAttribute("role", "alert");
      toggle.appendChild(note);
    }
    note.textContent = text;
  }

  document.addEventListener("htmx:sendError", function (event) {
    sayBesideSaveButton(
      event.detail,
      "Saving needs a connection: you seem to be offline. Try again once you are back online."
    );
  });
  document.addEventListener("htmx:responseError", function (event) {
    var xhr = event.detail.xhr;
    var isMessage = xhr.status === 400 && /^text\/plain/.test(xhr.getResponseHeader("Content-Type") || "");
    sayBesideSaveButton(event.detail, isMessage ? xhr.responseText : "Could not save just now: try again.");
  });
})();
