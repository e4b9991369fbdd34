"""The HTTP/WebSocket edge: the FastAPI app and what stands in front of it.

Owns the routes and the socket loop (`app`), the request guards (body size,
cross-site requests, security headers, request heads), forwarded headers from
trusted proxies, the one-phone page's offline files and `/metrics`.
May import every other server package; nothing in the server imports it but
`server.main`.
"""
