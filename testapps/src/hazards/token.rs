//! A login kept in local storage, as Verdaccio keeps its token: `/token/login` stores a
//! token in `localStorage` and sends no cookie; `/token/home` shows the account only while
//! the token is there, and the login form otherwise. For a peer that drives a browser of
//! its own: a cookie cannot carry this login over.

use axum::routing::get;
use axum::Router;

use crate::common;

pub(super) fn router() -> Router {
    Router::new()
        .route(
            "/token/login",
            get(|| async { common::html(LOGIN.to_string()) }),
        )
        .route(
            "/token/home",
            get(|| async { common::html(HOME.to_string()) }),
        )
}

const LOGIN: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Token login</title></head>
<body>
<h1>Sign in</h1>
<form id="login">
  <label>User <input id="user" name="user"></label>
  <label>Password <input id="password" name="password" type="password"></label>
  <button type="submit">Sign in</button>
</form>
<script>
  document.getElementById('login').addEventListener('submit', (ev) => {
    ev.preventDefault();
    localStorage.setItem('token', 'tok-' + document.getElementById('user').value);
    location.href = '/token/home';
  });
</script>
</body></html>"#;

const HOME: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Token home</title></head>
<body>
<div id="app"></div>
<script>
  const token = localStorage.getItem('token');
  const app = document.getElementById('app');
  if (token) {
    app.innerHTML = '<h1>Your packages</h1><p id="who">Signed in with ' + token + '</p>' +
      '<button id="refresh" onclick="document.getElementById(\'who\').textContent += \'.\'">Refresh</button>' +
      '<a href="/token/home#settings">Settings</a> <button id="out">Sign out</button>';
    document.getElementById('out').addEventListener('click', () => {
      localStorage.removeItem('token');
      location.href = '/token/login';
    });
  } else {
    app.innerHTML = '<h1>Sign in</h1><form id="login" action="/token/login">' +
      '<label>User <input id="user" name="user"></label>' +
      '<label>Password <input id="password" name="password" type="password"></label>' +
      '<button type="submit">Sign in</button></form>';
  }
</script>
</body></html>"#;
