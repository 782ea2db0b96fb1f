// Starts GraphiQL on the page. It lives in its own file so that the page's
// Content-Security-Policy can refuse every inline script.
(function () {
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  var fetcher = GraphiQL.createFetcher({ url: '/accounts/api/v1/graphql' });
  root.render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultHeaders: '{\n  "Authorization": "Bearer <token>"\n}',
      shouldPersistHeaders: false,
    })
  );
})();
