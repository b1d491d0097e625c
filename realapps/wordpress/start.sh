#!/usr/bin/env bash
# Usage: start.sh PORT -- Debian's WordPress 6.1 on PHP's built-in server, as a throw-away
# instance: a copy of the code and of the installed template database (admin / admin, a
# few posts and pages) in a temp dir, MariaDB on a socket there (no TCP), on
# 127.0.0.1:PORT (foreground). install.sh makes the template.
set -euo pipefail
PORT=${1:?usage: start.sh PORT}
PREFIX=${REALAPPS_PREFIX:-/opt/realapps}/wordpress
WORK=$(mktemp -d /tmp/realapp-wordpress.XXXXXX)
cleanup() {
  for p in ${PHP_PID:-} ${DB_PID:-}; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT; trap 'exit 143' TERM INT
# -L: its relative links into /usr/share/javascript (underscore) must still reach it.
cp -rL /usr/share/wordpress "$WORK/www"
rm -f "$WORK/www/wp-config.php" "$WORK/www/.htaccess"
cp -a "$PREFIX/template/db" "$WORK/db"
mariadbd --no-defaults --datadir="$WORK/db" --socket="$WORK/mysql.sock" --skip-networking \
  --user=root --pid-file="$WORK/mysql.pid" --log-error="$WORK/mysql.err" &
DB_PID=$!
for _ in $(seq 100); do [ -S "$WORK/mysql.sock" ] && break; sleep 0.1; done
[ -S "$WORK/mysql.sock" ] || { cat "$WORK/mysql.err" >&2; exit 1; }
cat > "$WORK/www/wp-config.php" <<PHP
<?php
define('DB_NAME', 'wordpress');
define('DB_USER', 'root');
define('DB_PASSWORD', '');
define('DB_HOST', 'localhost:$WORK/mysql.sock');
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');
\$table_prefix = 'wp_';
// This start's address, whatever the template was installed at.
define('WP_HOME', 'http://127.0.0.1:$PORT');
define('WP_SITEURL', 'http://127.0.0.1:$PORT');
define('AUTOMATIC_UPDATER_DISABLED', true);
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('DISABLE_WP_CRON', true);
define('WP_DEBUG', false);
if (!defined('ABSPATH')) { define('ABSPATH', __DIR__ . '/'); }
require_once ABSPATH . 'wp-settings.php';
PHP
echo "wordpress: http://127.0.0.1:$PORT/  (admin/admin)  workdir $WORK"
php -S "127.0.0.1:$PORT" -t "$WORK/www" &
PHP_PID=$!
wait "$PHP_PID"
