// Starts Swagger UI on /docs (src/http/pages/docs.html): a file of its own,
// not an inline script, so the page runs under a CSP without 'unsafe-inline'.
window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#docs', deepLinking: true });
