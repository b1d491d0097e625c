#!/usr/bin/env bash
# WordPress 6.1 from Debian (wordpress with its twentytwentythree theme, mariadb-server,
# php-mysql; php-pcov for its coverage), and a template database installed once (admin / admin, "Eval WordPress",
# a few posts and pages) that every start copies. Idempotent; needs root for apt.
set -euo pipefail
PREFIX=${REALAPPS_PREFIX:-/opt/realapps}/wordpress
if [ -d "$PREFIX/template/db/wordpress" ]; then echo "wordpress already installed in $PREFIX"; exit 0; fi
need=()
[ -d /usr/share/wordpress ] || need+=(wordpress)
[ -d /usr/share/wordpress/wp-content/themes/twentytwentythree ] || need+=(wordpress-theme-twentytwentythree)
command -v mariadbd >/dev/null 2>&1 || need+=(mariadb-server)
php -r 'exit(function_exists("mysqli_connect") ? 0 : 1);' 2>/dev/null || need+=(php-mysql)
php -r 'exit(function_exists("pcov\\start") ? 0 : 1);' 2>/dev/null || need+=(php-pcov)
if [ "${#need[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null 2>&1 || {
    apt-get update -qq; apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null; }
fi
mkdir -p "$PREFIX"
TMP=$(mktemp -d /tmp/wordpress-template.XXXXXX)
trap 'kill ${DB_PID:-} ${PHP_PID:-} 2>/dev/null || true; rm -rf "$TMP"' EXIT
mariadb-install-db --no-defaults --datadir="$TMP/db" --user=root --auth-root-authentication-method=normal >/dev/null
mariadbd --no-defaults --datadir="$TMP/db" --socket="$TMP/mysql.sock" --skip-networking --user=root \
  --log-error="$TMP/mysql.err" &
DB_PID=$!
for _ in $(seq 100); do [ -S "$TMP/mysql.sock" ] && break; sleep 0.1; done
mariadb --no-defaults --socket="$TMP/mysql.sock" -uroot -e "CREATE DATABASE wordpress CHARACTER SET utf8mb4;
  ALTER USER 'root'@'localhost' IDENTIFIED VIA mysql_native_password USING PASSWORD('');"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cp -rL /usr/share/wordpress "$TMP/www"; rm -f "$TMP/www/wp-config.php" "$TMP/www/.htaccess"
cat > "$TMP/www/wp-config.php" <<PHP
<?php
define('DB_NAME', 'wordpress'); define('DB_USER', 'root'); define('DB_PASSWORD', '');
define('DB_HOST', 'localhost:$TMP/mysql.sock'); define('DB_CHARSET', 'utf8mb4'); define('DB_COLLATE', '');
\$table_prefix = 'wp_';
define('WP_HTTP_BLOCK_EXTERNAL', true);
if (!defined('ABSPATH')) { define('ABSPATH', __DIR__ . '/'); }
require_once ABSPATH . 'wp-settings.php';
PHP
php -S "127.0.0.1:$PORT" -t "$TMP/www" >/dev/null 2>&1 &
PHP_PID=$!
sleep 1
curl -s -o /dev/null "http://127.0.0.1:$PORT/wp-admin/install.php?step=2" \
  --data-urlencode "weblog_title=Eval WordPress" --data-urlencode "user_name=admin" \
  --data-urlencode "admin_password=admin" --data-urlencode "admin_password2=admin" \
  --data-urlencode "pw_weak=on" --data-urlencode "admin_email=admin@example.com" \
  --data-urlencode "blog_public=0" --data-urlencode "language="
mariadb --no-defaults --socket="$TMP/mysql.sock" -uroot wordpress -e "
  INSERT INTO wp_posts (post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt, post_status, post_name, to_ping, pinged, post_modified, post_modified_gmt, post_content_filtered, post_type, comment_status)
  VALUES (1, NOW(), UTC_TIMESTAMP(), 'Opening hours and directions.', 'About us', '', 'publish', 'about-us', '', '', NOW(), UTC_TIMESTAMP(), '', 'page', 'closed'),
         (1, NOW(), UTC_TIMESTAMP(), 'Our first release is out.', 'Release notes', '', 'publish', 'release-notes', '', '', NOW(), UTC_TIMESTAMP(), '', 'post', 'open'),
         (1, NOW(), UTC_TIMESTAMP(), 'Work in progress.', 'A draft', '', 'draft', 'a-draft', '', '', NOW(), UTC_TIMESTAMP(), '', 'post', 'open');"
n=$(mariadb --no-defaults --socket="$TMP/mysql.sock" -uroot wordpress -N -e "SELECT COUNT(*) FROM wp_users WHERE user_login='admin'")
[ "$n" = 1 ] || { echo "wordpress install failed: no admin user" >&2; exit 1; }
kill "$PHP_PID"; wait "$PHP_PID" 2>/dev/null || true
mariadb-admin --no-defaults --socket="$TMP/mysql.sock" -uroot shutdown
wait "$DB_PID" 2>/dev/null || true
rm -rf "$PREFIX/template"; mkdir -p "$PREFIX/template"; cp -a "$TMP/db" "$PREFIX/template/db"
echo "wordpress installed in $PREFIX"
