#!/usr/bin/env bash
# The shipped nginx configuration in front of two `serve` processes on one PostgreSQL database, on this machine's
# loopback, for `python -m companion load --abuse KIND --url URL` (docs/benchmarks.md). Prints nginx's URL; run
# it again with `stop` to end it. Needs Debian's nginx and a PostgreSQL database (DATABASE_URL) to use up.
# Rate limits are raised as `load` raises them, since every simulated phone comes from one address. Each
# process's share per address is 250 requests in progress, as deploy/companion.env advises for two processes
# behind nginx's cap of 300 live updates per address.
# nginx listens on BEHIND_NGINX_PORT (55640); the two back ends listen on Unix sockets (mode 660) in a folder of
# their own, which only their user and nginx's workers may enter: nothing but nginx reaches them, so no client
# can bypass it and forge the X-Forwarded-For it sets. They are named after the next two ports.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=${BEHIND_NGINX_DIR:-/tmp/companion-behind-nginx}
front=${BEHIND_NGINX_PORT:-55640}
backs="$((front + 1)) $((front + 2))"
if [ "${1:-}" = stop ]; then
    kill "$(cat "$work/nginx.launch")" 2>/dev/null || true
    for port in $backs; do kill "$(cat "$work/serve-$port.pid")" 2>/dev/null || true; done
    exit 0
fi
: "${DATABASE_URL:?set DATABASE_URL to a PostgreSQL database this may fill}"
mkdir -p "$work"/{body,proxy,fcgi,uwsgi,scgi,instance,sockets}
sockets="$work/sockets"
# nginx started by root runs its workers as nobody: the folder's group is theirs, and the sockets made in it
# inherit it (setgid).
if [ "$(id -u)" = 0 ]; then chgrp nogroup "$sockets"; fi
chmod 2750 "$sockets"
cd "$here"
for port in $backs; do
    COMPANION_SECRET_KEY=$(printf 'k%.0s' {1..40}) COMPANION_TRUST_PROXY=1 COMPANION_INSTANCE_PATH="$work/instance" \
    COMPANION_RATE_LIMIT_NEW_GAMES="100000 per minute" COMPANION_RATE_LIMIT_ACTIONS="1000000 per minute" \
    COMPANION_REQUESTS_PER_ADDRESS=${COMPANION_REQUESTS_PER_ADDRESS:-250} \
    nohup python -m companion serve --unix-socket "$sockets/$port.sock" --workers 1 > "$work/serve-$port.log" 2>&1 &
    echo $! > "$work/serve-$port.pid"
done
for port in $backs; do
    until curl -s -o /dev/null --unix-socket "$sockets/$port.sock" http://localhost/; do sleep 1; done
done
cat > "$work/nginx.conf" <<CONF
daemon off; pid $work/nginx.pid; error_log $work/error.log; worker_processes 1;
events { worker_connections 16384; }
worker_rlimit_nofile 20000;
http { client_body_temp_path $work/body; proxy_temp_path $work/proxy; fastcgi_temp_path $work/fcgi;
uwsgi_temp_path $work/uwsgi; scgi_temp_path $work/scgi;
$(sed -e "s#/var/log/nginx/#$work/#g" -e "s/listen 80;/listen 127.0.0.1:$front;/" \
      -e "s#server 127.0.0.1:5001;#server unix:$sockets/$((front + 1)).sock;#" \
      -e "s#server 127.0.0.1:5002;#server unix:$sockets/$((front + 2)).sock;#" deploy/nginx.conf)
}
CONF
nohup /usr/sbin/nginx -c "$work/nginx.conf" -p "$work" > "$work/nginx.out" 2>&1 &
echo $! > "$work/nginx.launch"
sleep 1
echo "http://127.0.0.1:$front"
