// Starts Swagger UI on the page with the connector API's document. It
// lives in its own file so that the page's Content-Security-Policy can
// refuse every inline script.
(function () {
  window.ui = SwaggerUIBundle({
    url: '/connectors/api/v1/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    persistAuthorization: false,
    validatorUrl: null,
  });
})();
