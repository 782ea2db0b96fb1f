// Starts GraphiQL on the page once the reader gave an access token. It
// lives in its own file so that the page's Content-Security-Policy can
// refuse every inline script.
(function () {
  var API = '/accounts/api/v1/graphql';
  var KEPT = 'kenning-graphiql-token';
  var form = document.getElementById('kenning-token');
  var input = document.getElementById('kenning-token-input');
  var keep = document.getElementById('kenning-token-keep');
  var error = document.getElementById('kenning-token-error');

  function text(id) {
    return document.getElementById(id).textContent.trim() + '\n';
  }

  function headers(token) {
    return { Authorization: 'Bearer ' + token };
  }

  // The token works when the API answers a request with it.
  function check(token) {
    return fetch(API, {
      method: 'POST',
      headers: Object.assign({ 'Content-Type': 'application/json' }, headers(token)),
      body: JSON.stringify({ query: '{ __typename }' }),
    }).then(function (response) {
      return response.json().then(function (answer) {
        if (response.ok) {
          return null;
        }
        var first = (answer.errors || [])[0] || {};
        return first.message || 'the server answered ' + response.status;
      });
    });
  }

  function open(token) {
    form.hidden = true;
    var root = ReactDOM.createRoot(document.getElementById('graphiql'));
    var fetcher = GraphiQL.createFetcher({ url: API, headers: headers(token) });
    root.render(
      React.createElement(GraphiQL, {
        fetcher: fetcher,
        defaultQuery: text('kenning-example-query'),
        defaultEditorToolsVisibility: 'variables',
        variables: text('kenning-example-variables'),
        shouldPersistHeaders: false,
      })
    );
  }

  function ask(problem) {
    error.textContent = problem || '';
    form.hidden = false;
    input.focus();
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var token = input.value.trim();
    check(token).then(function (problem) {
      if (problem) {
        ask('That token was refused: ' + problem);
        return;
      }
      if (keep.checked) {
        sessionStorage.setItem(KEPT, token);
      } else {
        sessionStorage.removeItem(KEPT);
      }
      open(token);
    }, function () {
      ask('The server did not answer.');
    });
  });

  var kept = sessionStorage.getItem(KEPT);
  if (kept) {
    check(kept).then(function (problem) {
      if (problem) {
        sessionStorage.removeItem(KEPT);
        ask('The kept token was refused: ' + problem);
      } else {
        open(kept);
      }
    }, function () {
      ask('The server did not answer.');
    });
  } else {
    ask('');
  }
})();
