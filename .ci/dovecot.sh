#!/usr/bin/env bash
# Starts a throwaway Dovecot IMAP server for the email connector's tests and prints, on stdout, the lines to
# eval:
#   export FEEDBRIDGE_TEST_IMAP_ADDR=127.0.0.1:PORT
#   export FEEDBRIDGE_TEST_IMAP_USER=feedback@example.com
#   export FEEDBRIDGE_TEST_IMAP_PASS=...
#   export FEEDBRIDGE_TEST_DOVECOT_DIR=/tmp/fb-dovecot.XXXXXX
# When FEEDBRIDGE_TEST_IMAP_ADDR is already set and answers, it is kept. Otherwise Debian's dovecot-imapd is
# installed when missing and started in the foreground (in the background of this script) on a spare loopback
# port, plaintext, with one passwd-file user whose Maildir lives in a temp dir. Diagnostics go to stderr; the
# exit status is non-zero when no server can be had.
#
#   eval "$(.ci/dovecot.sh)"       # find or start
#   .ci/dovecot.sh stop            # stop the server named by FEEDBRIDGE_TEST_DOVECOT_DIR and remove its dir
set -euo pipefail

log() { echo "dovecot.sh: $*" >&2; }

# greets HOST:PORT: an IMAP server there sends its "* OK" greeting.
greets() {
	local host=${1%:*} port=${1##*:} line=""
	{ exec 3<>"/dev/tcp/$host/$port"; } 2>/dev/null || return 1 # braces: only this line's stderr is silenced
	IFS= read -r -t 3 line <&3 || true
	exec 3<&- 3>&-
	[[ $line == "* OK"* ]]
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

install_dovecot() {
	command -v dovecot >/dev/null 2>&1 && return 0
	local sudo=""
	if [ "$(id -u)" != 0 ]; then
		command -v sudo >/dev/null 2>&1 || { log "dovecot is not installed and there is no root or sudo to install it"; return 1; }
		sudo="sudo"
	fi
	log "installing Debian's dovecot-imapd (about 20 s)"
	$sudo apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends dovecot-imapd >&2
}

# write_config DIR PORT: a Dovecot 2.3 configuration that owns nothing outside DIR.
write_config() {
	local dir=$1 port=$2 uid gid extra=""
	if [ "$(id -u)" = 0 ]; then
		uid=nobody gid=nogroup
	else
		# Unprivileged, every process runs as the current user.
		uid=$(id -un) gid=$(id -gn)
		extra="default_internal_user = $uid
default_internal_group = $gid
default_login_user = $uid"
	fi
	cat >"$dir/dovecot.conf" <<-EOF
		protocols = imap
		listen = 127.0.0.1
		base_dir = $dir/run
		state_dir = $dir/state
		log_path = $dir/dovecot.log
		info_log_path = $dir/dovecot.log
		ssl = no
		disable_plaintext_auth = no
		auth_mechanisms = plain login
		mail_location = maildir:~/Maildir
		mail_max_userip_connections = 200
		$extra
		passdb {
		  driver = passwd-file
		  args = scheme=PLAIN username_format=%u $dir/passwd
		}
		userdb {
		  driver = static
		  args = uid=$uid gid=$gid home=$dir/home/%u
		}
		service imap-login {
		  inet_listener imap {
		    address = 127.0.0.1
		    port = $port
		  }
		  inet_listener imaps {
		    port = 0
		  }
		}
	EOF
}

start() {
	install_dovecot || return 1
	local dir port user=feedback@example.com pass
	dir=$(mktemp -d /tmp/fb-dovecot.XXXXXX)
	chmod 755 "$dir" # the mail processes run as nobody and must reach the Maildir
	mkdir -p "$dir/run" "$dir/state" "$dir/home/$user"
	pass=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
	echo "$user:{PLAIN}$pass" >"$dir/passwd"
	if [ "$(id -u)" = 0 ]; then chown -R nobody:nogroup "$dir/home"; fi
	for port in $(seq 51430 51529); do
		port_free "$port" || continue
		write_config "$dir" "$port"
		nohup dovecot -F -c "$dir/dovecot.conf" >"$dir/stdout.log" 2>&1 &
		echo $! >"$dir/pid"
		local i
		for i in $(seq 1 50); do
			if greets "127.0.0.1:$port"; then
				log "Dovecot on 127.0.0.1:$port; stop with: FEEDBRIDGE_TEST_DOVECOT_DIR=$dir $0 stop"
				echo "export FEEDBRIDGE_TEST_IMAP_ADDR='127.0.0.1:$port'"
				echo "export FEEDBRIDGE_TEST_IMAP_USER='$user'"
				echo "export FEEDBRIDGE_TEST_IMAP_PASS='$pass'"
				echo "export FEEDBRIDGE_TEST_DOVECOT_DIR='$dir'"
				return 0
			fi
			kill -0 "$(cat "$dir/pid")" 2>/dev/null || break
			sleep 0.1
		done
		log "Dovecot did not come up on port $port:"
		tail -n 5 "$dir/dovecot.log" "$dir/stdout.log" >&2 2>/dev/null || true
		kill "$(cat "$dir/pid")" 2>/dev/null || true
	done
	log "no working port in 51430-51529"
	return 1
}

stop() {
	local dir=${FEEDBRIDGE_TEST_DOVECOT_DIR:-}
	[ -n "$dir" ] && [ -f "$dir/pid" ] || { log "FEEDBRIDGE_TEST_DOVECOT_DIR does not name a throwaway Dovecot"; return 1; }
	kill "$(cat "$dir/pid")" 2>/dev/null || true
	sleep 0.2
	rm -rf "$dir"
	log "stopped and removed $dir"
}

main() {
	if [ "${1:-}" = stop ]; then stop; return; fi
	if [ -n "${FEEDBRIDGE_TEST_IMAP_ADDR:-}" ] && greets "$FEEDBRIDGE_TEST_IMAP_ADDR"; then
		log "using FEEDBRIDGE_TEST_IMAP_ADDR"
		echo "export FEEDBRIDGE_TEST_IMAP_ADDR='$FEEDBRIDGE_TEST_IMAP_ADDR'"
		echo "export FEEDBRIDGE_TEST_IMAP_USER='${FEEDBRIDGE_TEST_IMAP_USER:-}'"
		echo "export FEEDBRIDGE_TEST_IMAP_PASS='${FEEDBRIDGE_TEST_IMAP_PASS:-}'"
		return 0
	fi
	start
}

main "$@"
