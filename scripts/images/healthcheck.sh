#!/bin/sh
# healthcheck.sh of dbarena.local/mariadb: the official image's health
# check, for the two tests the catalogue asks for. --connect: the server
# takes connections (an "access denied" counts: it answered);
# --innodb_initialized: InnoDB is up. Logs in as root with the image's
# password variable.
set -eu
pw="${MARIADB_ROOT_PASSWORD:-${MYSQL_ROOT_PASSWORD:-}}"
for check in "$@"; do
	case "$check" in
	--connect) mariadb-admin -uroot ping >/dev/null 2>&1 ;;
	--innodb_initialized)
		MYSQL_PWD="$pw" mariadb -uroot -N -e "SELECT 1 FROM information_schema.ENGINES WHERE ENGINE='InnoDB' AND SUPPORT IN ('YES','DEFAULT')" | grep -q 1
		;;
	*)
		echo "healthcheck.sh: unknown check $check" >&2
		exit 2
		;;
	esac
done
