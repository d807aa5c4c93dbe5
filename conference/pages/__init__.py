"""The page layer: conference pages made once per version, personal parts filled per visitor.

A *shared* page looks the same to everyone who asks for the same thing, apart from a few
personal parts (account links, Save buttons, messages). Its modules, in the order a request
meets them:

- ``versions``: what a page depends on (release, conference content, URL, display zone, role,
  and for now/next the minute), hashed into its ETag; conditional GET answers from it.
- ``views``: ``SharedPageMixin``, the only way a view caches a page, and the HTTP caching
  headers that let a cache in front (deploy/nginx.conf) answer repeats.
- ``nobody``: the stand-in visitor a shared part is rendered for, so nothing personal can end
  up in it.
- ``holes``: the personal parts (``personal()`` in templates) and how each visitor's are
  filled in, the usual ones reused.
- ``compressed``: a logged-in page sent deflated without compressing anything of its visitor.
- ``copies``: the cache, and this worker's copies in front of it.

The rule every page keeps: the shared part depends only on what its version names, so
everything read of the visitor goes into a hole.
"""
