// The site's service worker, served from /service-worker.js by conference/site/offline.py, which puts
// CONFIG above this line: the static files to keep at once, the paths never kept, the log in and
// out addresses, and the version (one per release and set of static files).
//
// Pages: network first, and the last copy when the network fails, so pages visited open at the
// venue without a connection; after a page of a conference loads, the rest of the conference is
// fetched ahead from its manifest (storeConference). Hashed static files never change: cache first. Only GET is ever
// answered from the cache; POSTs, the admin, the API and the account pages always go to us.
"use strict";

const PAGES = "pages-" + CONFIG.version;
const STATIC = "static-" + CONFIG.version;
const FETCHED_AT = "X-Offline-Fetched-At";
// On a copy fetched ahead (storeConference): the version of the conference's manifest it is of.
const OF_VERSION = "X-Offline-Version";
// Pages fetched ahead at once, so the venue's network and the server are asked gently.
const AHEAD_AT_ONCE = 3;
// Pages about the present (now and next) are fetched ahead again once their copy is this old,
// whatever the version: offline they show what was on when kept, and say when that was.
const PRESENT_KEPT_FOR_MS = 5 * 60 * 1000;
// ManifestStaticFilesStorage puts 12 hex digits of the content's hash in every name.
const HASHED = /\.[0-9a-f]{12}\.[A-Za-z0-9]+$/;

// Pages answered from a copy, and when that copy was fetched, until the page asks (offline.js).
const answeredFromCopy = new Map();
// Pages this worker fetched, and the keeping of their copy, for the page's question to wait on.
const fetching = new Map();
// Redirects being learnt (keepRedirect): the page they lead to waits for them too.
const keepingRedirects = new Set();
// Conferences being stored (storeConference), by manifest address: one run each at a time.
const storing = new Map();
// The manifest version each conference was wholly kept at, by manifest address: a page load
// that finds it unchanged looks no further. Forgotten with the kept pages.
const storedVersions = new Map();
// Moves when the kept pages are dropped (a log-in or log-out): a run begun before stops.
let generation = 0;

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(STATIC)
      .then((cache) =>
        // The offline page without cookies: it outlives logging out, so it must name nobody.
        cache.addAll([...CONFIG.precache, new Request(CONFIG.offlinePage, { credentials: "omit" })])
      )
      .then(() => self.skipWaiting())
  );
});

// A new version drops every older cache: a deploy replaces what browsers keep.
self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(names.filter((name) => name !== PAGES && name !== STATIC).map((name) => caches.delete(name)))
      )
      .then(() => self.clients.claim())
  );
});

function withoutFragment(address) {
  const url = new URL(address);
  url.hash = "";
  return url.href;
}

// The address without its empty parameters, as the filter pages redirect to online
// (DropsEmptyParametersMixin): a filter form submitted offline (?day=&track=ai&q=) finds the copy
// kept for ?track=ai.
function withoutEmptyParameters(address) {
  const url = new URL(address);
  const kept = [...url.searchParams].filter(([, value]) => value.trim() !== "");
  url.search = new URLSearchParams(kept).toString();
  return url.href;
}

async function keptPage(address) {
  const options = { cacheName: PAGES, ignoreVary: true };
  return (
    (await caches.match(address, options)) || (await caches.match(withoutEmptyParameters(address), options))
  );
}

// The path as Django routes it: the server decodes percent escapes before Django sees the path,
// so /%61ccounts/settings/ and /accounts%2Fsettings/ are /accounts/settings/ there and must be
// here. null for an escape that decodes to no text: such a path is never kept.
function routedPath(url) {
  try {
    return decodeURIComponent(url.pathname);
  } catch (error) {
    return null;
  }
}

function keepable(url) {
  const path = routedPath(url);
  return (
    url.origin === self.location.origin &&
    path !== null &&
    path !== self.location.pathname &&
    !CONFIG.neverKept.some((prefix) => path.startsWith(prefix))
  );
}

function isHashedStatic(url) {
  return url.pathname.startsWith(CONFIG.staticPrefix) && HASHED.test(url.pathname);
}

function worthKeeping(response, isPage) {
  if (!response.ok || response.type !== "basic" || response.redirected) return false;
  if (/no-store/.test(response.headers.get("Cache-Control") || "")) return false;
  return !isPage || (response.headers.get("Content-Type") || "").startsWith("text/html");
}

// The copy carries the moment it was kept: the offline notice says "kept at HH:MM".
async function keep(cacheName, address, response) {
  const cache = await caches.open(cacheName);
  await cache.put(address, await copyOf(response));
}

async function copyOf(response, version) {
  const headers = new Headers(response.headers);
  headers.set(FETCHED_AT, new Date().toISOString());
  if (version) headers.set(OF_VERSION, version);
  const body = await response.blob();
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

// A page asks us every time (a 304 when unchanged): the browser's own cache would otherwise
// answer for a while without asking, offline too, and the notice would not say it is a copy.
// Redirects go back to the browser, as for any navigation.
function fetchPage(request) {
  return fetch(request.url, {
    cache: "no-cache",
    credentials: "same-origin",
    redirect: "manual",
    referrer: request.referrer,
  });
}

async function networkFirst(event, isPage) {
  const request = event.request;
  const address = withoutFragment(request.url);
  let response;
  try {
    response = await (isPage ? fetchPage(request) : fetch(request));
  } catch (error) {
    const copy = isPage
      ? await keptPage(address)
      : await caches.match(address, { cacheName: PAGES, ignoreVary: true });
    if (!copy && isPage) {
      const offline = await offlinePageFor(new URL(address));
      if (offline) return offline;
    }
    if (!copy) throw error;
    if (isPage && copy.headers.has(FETCHED_AT)) answeredFromCopy.set(address, copy.headers.get(FETCHED_AT));
    return copy;
  }
  if (isPage && response.type === "opaqueredirect") {
    const kept = keepRedirect(address).catch(() => undefined);
    keepingRedirects.add(kept);
    kept.then(() => keepingRedirects.delete(kept));
    event.waitUntil(kept);
  } else if (worthKeeping(response, isPage)) {
    const kept = keep(PAGES, address, response.clone()).catch(() => undefined);
    if (isPage) fetching.set(address, kept);
    event.waitUntil(kept);
  } else if (isPage) {
    fetching.set(address, Promise.resolve());
  }
  return response;
}

// For a page never kept: its conference's offline page (kept with the visitor's pages, so with
// their account links), else the site's, which names nobody.
async function offlinePageFor(url) {
  const path = routedPath(url);
  const slug = path === null ? "" : path.split("/")[1];
  if (slug) {
    const own = CONFIG.conferenceOfflinePage.replace("SLUG", encodeURIComponent(slug));
    const kept = await caches.match(new URL(own, self.location.origin).href, { cacheName: PAGES });
    if (kept) return kept;
  }
  return caches.match(CONFIG.offlinePage, { cacheName: STATIC });
}

// A redirect is handed to the browser unread (so the address bar shows where it leads); to open
// offline too (the app starts at "/", which leads to the only conference), ask again following
// it, and keep the redirect when it leads to a page we keep. Asked without cookies: a page it
// leads to may set the CSRF cookie, and a second one would replace the cookie of the log-in
// form the visitor is shown (its log-in then fails); only redirects everyone gets are kept.
async function keepRedirect(address) {
  const response = await fetch(address, { cache: "no-cache", credentials: "omit" });
  if (response.body) response.body.cancel();
  if (response.ok && response.redirected && keepable(new URL(response.url))) {
    const cache = await caches.open(PAGES);
    await cache.put(address, Response.redirect(response.url, 302));
  }
}

async function cacheFirst(request) {
  const cached = await caches.match(request, { cacheName: STATIC });
  if (cached) return cached;
  const response = await fetch(request);
  if (worthKeeping(response, false)) await keep(STATIC, request.url, response.clone());
  return response;
}

async function forgetPagesThen(request) {
  generation += 1;
  storedVersions.clear();
  await caches.delete(PAGES);
  return fetch(request);
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.method === "POST" && CONFIG.forgetPagesOn.includes(routedPath(url))) {
    // Logging in or out: the copies hold the last visitor's pages (my schedule, Saved buttons).
    event.respondWith(forgetPagesThen(request));
    return;
  }
  if (request.method !== "GET" || !keepable(url)) return;
  if (isHashedStatic(url)) {
    event.respondWith(cacheFirst(request));
  } else if (request.mode === "navigate") {
    event.respondWith(networkFirst(event, true));
  } else if (["style", "script", "image", "font"].includes(request.destination)) {
    // Unhashed static files (development) and the conference's tracks.css; htmx's own requests
    // (destination "") are left alone: they fetch parts of pages, not pages.
    event.respondWith(networkFirst(event, false));
  }
});

// A page, once shown, asks whether it is a copy (and from when), and makes sure that it and what
// it loaded are kept: the first page visited was fetched before this worker ran.
async function answerPageShown(data, port) {
  const address = withoutFragment(data.url);
  const fetchedAt = answeredFromCopy.get(address);
  answeredFromCopy.delete(address);
  const url = new URL(address);
  if (fetchedAt === undefined && keepable(url)) {
    if (fetching.has(address)) {
      await fetching.get(address);
    } else if (!(await caches.match(address, { cacheName: PAGES, ignoreVary: true }))) {
      const started = generation;
      try {
        const response = await fetch(address, { credentials: "same-origin" });
        if (worthKeeping(response, true) && generation === started) {
          await keep(PAGES, address, response);
        }
      } catch (error) {
        // Offline already: nothing to keep.
      }
    }
    fetching.delete(address);
  }
  const resources = [...(data.resources || [])];
  // The page's conference's offline page, as this visitor sees it (a log-in or log-out drops it).
  if (data.offlinePage) resources.push(new URL(data.offlinePage, self.location.origin).href);
  await Promise.all([...keepingRedirects, ...resources.map(keepResource)]);
  port.postMessage({ fromCopy: fetchedAt !== undefined, fetchedAt: fetchedAt || null });
  // Then the rest of the conference, unless this page came from a copy (we are offline).
  if (data.conferenceManifest && fetchedAt === undefined) {
    const manifest = new URL(data.conferenceManifest, self.location.origin).href;
    if (!storing.has(manifest)) {
      const run = storeConference(manifest).catch(() => false);
      storing.set(manifest, run);
      run.then(() => storing.delete(manifest));
    }
    port.postMessage({ conferenceStored: await storing.get(manifest) });
  }
}

// Every page of the conference its manifest lists, fetched ahead when missing or of an older
// version: a few at a time, and not at all when the visitor asked to save data. A copy carries the
// manifest's version; one kept by a visit carries none, and is asked for again with its ETag (a
// 304 when unchanged). True once all are kept.
async function storeConference(manifestAddress) {
  const connection = self.navigator.connection;
  if (connection && connection.saveData) return false;
  const started = generation;
  // Opened once: when a log-in or log-out deletes it, what a fetch begun before for the visitor
  // of then puts here is dropped with it, never kept for the next.
  const cache = await caches.open(PAGES);
  const response = await fetch(manifestAddress, { cache: "no-cache", credentials: "same-origin" });
  if (!response.ok) return false;
  const manifest = await response.json();
  const wanted = [];
  for (const path of manifest.present || []) {
    const address = new URL(path, self.location.origin).href;
    const copy = await cache.match(address, { ignoreVary: true });
    const keptAt = copy && Date.parse(copy.headers.get(FETCHED_AT) || "");
    if (!keptAt || Date.now() - keptAt > PRESENT_KEPT_FOR_MS) wanted.push({ address, isPage: true, present: true });
  }
  if (storedVersions.get(manifestAddress) === manifest.version && !wanted.length) return true;
  for (const [paths, isPage] of [
    [manifest.pages, true],
    [manifest.resources, false],
  ]) {
    for (const path of paths) {
      const address = new URL(path, self.location.origin).href;
      const copy = await cache.match(address, { ignoreVary: true });
      if (!copy || copy.headers.get(OF_VERSION) !== manifest.version) wanted.push({ address, isPage, copy });
    }
  }
  let complete = true;
  // A page about the present not kept (an organizer's preview time says no-store) leaves the rest
  // complete: it is asked again at the next page load anyway.
  const fetchOne = async ({ address, isPage, copy, present }) => {
    const headers = {};
    const etag = copy && copy.headers.get("ETag");
    if (etag) headers["If-None-Match"] = etag;
    const answer = await fetch(address, { cache: "no-store", credentials: "same-origin", headers });
    if (answer.status === 304 && copy) {
      await cache.put(address, await copyOf(copy, manifest.version));
    } else if (worthKeeping(answer, isPage)) {
      await cache.put(address, await copyOf(answer, manifest.version));
    } else if (!(present && answer.ok)) {
      complete = false;
    }
  };
  const queue = [...wanted];
  const worker = async () => {
    while (queue.length && generation === started) {
      try {
        await fetchOne(queue.shift());
      } catch (error) {
        complete = false; // offline again: the next page load goes on
      }
    }
  };
  await Promise.all(Array.from({ length: AHEAD_AT_ONCE }, worker));
  if (!complete || generation !== started) return false;
  storedVersions.set(manifestAddress, manifest.version);
  return true;
}

async function keepResource(address) {
  const url = new URL(address);
  if (!keepable(url)) return;
  const cacheName = isHashedStatic(url) ? STATIC : PAGES;
  if (await caches.match(address, { cacheName })) return;
  const started = generation;
  try {
    const response = await fetch(address, { credentials: "same-origin" });
    // Not when a log-in or log-out came in between: the answer is the visitor of before's.
    if (worthKeeping(response, false) && generation === started) {
      await keep(cacheName, address, response);
    }
  } catch (error) {
    // Offline: kept next time.
  }
}

self.addEventListener("message", (event) => {
  const data = event.data || {};
  if (data.type === "page-shown" && event.ports[0]) {
    event.waitUntil(answerPageShown(data, event.ports[0]));
  }
});
