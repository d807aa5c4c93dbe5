"""The REST API's plumbing and conference's own routes: the policies every API view shares
(paging, permissions, conditional reads, versioned writes, errors), the OpenAPI schema hooks, token
authentication and scopes, and the views and serializers of conferences, rooms and tracks. Each
app keeps its own API beside its models (sessions/api/, speakers/api/); conference/site/api_urls.py
mounts them all under /api/v1/."""
