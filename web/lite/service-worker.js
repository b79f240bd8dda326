// The browser edition's service worker: the site works offline once it has
// loaded. scripts/build-lite writes it over JupyterLite's own
// service-worker.js (the file JupyterLite 0.8 registers, at the site's root,
// so its scope is the site, under any path prefix), with VERSION (a hash of
// the site's files) and PRECACHE (every file of the site, relative to it,
// but the Go toolchain's compressed assets) before this text.
//
// - Install keeps every PRECACHE file in the cache backofflab-site-VERSION:
//   the application, the lessons' contents (api/contents/…/all.json and
//   files/…), the kernel and Go in the browser's scripts, manifest and
//   symbol table. Go in the browser keeps its own large assets (the
//   compiler, the linker, the package bundle) in its own cache as it
//   fetches them (web/src/assets.js), and the programs it built
//   (web/src/programs.js).
// - A request for a site file is answered from that cache (the files of one
//   build never change; a new build is a new service worker, whose install
//   fetches the new files, and whose activation drops the old cache).
//   Anything else goes to the network; when the network fails, a request in
//   the site that is not a site file gets a 404, as the server would answer.
// - JupyterLite's own duties are kept: its heartbeat, and relaying
//   /api/drive and /api/stdin requests to the page (JupyterLite 0.8.6's
//   service-worker.js, same channel and messages).

/* global VERSION, PRECACHE */
const SITE_CACHE = `backofflab-site-${VERSION}`;
const SITE = new URL("./", self.location.href); // the scope: the site's root
// A marker put last by install: the cache holds every file.
const COMPLETE = new URL("backofflab-precache-complete", SITE).href;
const siteFiles = new Set(PRECACHE.map((p) => new URL(p, SITE).href));
const broadcast = new BroadcastChannel("/sw-api.v1");

self.addEventListener("install", (event) => {
  self.skipWaiting();
  event.waitUntil(precache());
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith("backofflab-site-") && name !== SITE_CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

// precache fetches the site files the cache does not hold yet (a second
// install of the same build fetches nothing), a few at a time.
async function precache() {
  const cache = await caches.open(SITE_CACHE);
  if (await cache.match(COMPLETE)) return;
  const todo = [];
  for (const url of siteFiles) if (!(await cache.match(url))) todo.push(url);
  const worker = async () => {
    for (let url = todo.pop(); url; url = todo.pop()) {
      // A folder's index.html as the folder (some servers redirect the one to the other).
      let resp = await fetch(url.endsWith("/index.html") ? url.slice(0, -"index.html".length) : url, { cache: "no-cache" });
      if (!resp.ok) throw new Error(`precaching ${url}: ${resp.status}`);
      // A page may not be answered with a redirected response: keep its content only.
      if (resp.redirected) resp = new Response(await resp.blob(), { status: resp.status, statusText: resp.statusText, headers: resp.headers });
      await cache.put(url, resp);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  await cache.put(COMPLETE, new Response(VERSION));
}

self.addEventListener("fetch", (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (url.pathname.endsWith("/api/service-worker-heartbeat")) {
    event.respondWith(new Response("ok"));
    return;
  }
  if (url.origin === SITE.origin && (url.pathname.includes("/api/drive") || url.pathname.includes("/api/stdin/"))) {
    event.respondWith(relay(request, url));
    return;
  }
  if (request.method !== "GET" || url.origin !== SITE.origin || !url.pathname.startsWith(SITE.pathname)) return;
  event.respondWith(fromSite(request, url));
});

// fromSite answers a GET in the site: a site file from the cache (the
// network if the cache lost it), anything else from the network, or a 404
// when the network fails.
async function fromSite(request, url) {
  url.search = url.hash = "";
  const file = siteFiles.has(url.href) ? url.href : siteFiles.has(url.href + "index.html") ? url.href + "index.html" : null;
  if (file) {
    const cache = await caches.open(SITE_CACHE);
    const hit = await cache.match(file);
    if (hit) return hit;
  }
  try {
    return await fetch(request);
  } catch (err) {
    const any = await caches.match(request, { ignoreSearch: true });
    if (any) return any;
    if (file) throw err;
    return new Response(`not in the site, and offline: ${url.pathname}`, { status: 404, statusText: "Not Found" });
  }
}

// relay passes a drive or stdin request to the page that made it
// (JupyterLite's contents processor answers it) and returns its answer.
async function relay(request, url) {
  const message = await request.json();
  const requestId = message.requestId ?? crypto.randomUUID();
  message.requestId = requestId;
  const answer = new Promise((resolve) => {
    const listen = (event) => {
      const data = event.data;
      if (data.browsingContextId !== message.browsingContextId || data.requestId !== requestId) return;
      broadcast.removeEventListener("message", listen);
      resolve(new Response(JSON.stringify(data.response)));
    };
    broadcast.addEventListener("message", listen);
  });
  message.pathname = url.pathname;
  broadcast.postMessage(message);
  return answer;
}
