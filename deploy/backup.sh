#!/bin/sh
# Back up the site's database (learners' submissions, XP, accounts and the job queue) with pg_dump.
#   deploy/backup.sh                       # writes mkc-YYYYmmdd-HHMMSS.dump in the current folder
#   MKC_BACKUP_DIR=/srv/backups deploy/backup.sh
# Run it from cron (e.g. hourly during a lecture); keep copies off this host.
# Restore (README "Running a class"): stop the web and the workers, then
#   pg_restore --clean --if-exists --no-owner -d "$PGURL" mkc-....dump
# and start them again. Rows that waited for grading when the dump was taken get their jobs back
# within a minute (the workers' reconciliation), so nothing a learner sent stays stranded.
set -eu
: "${MKC_DATABASE_URL:?set MKC_DATABASE_URL (as in /etc/mkc/mkc.env)}"
# pg_dump takes a libpq URL: postgresql://..., without SQLAlchemy's "+psycopg".
PGURL=$(printf '%s' "$MKC_DATABASE_URL" | sed 's#^postgresql+psycopg://#postgresql://#')
out="${MKC_BACKUP_DIR:-.}/mkc-$(date -u +%Y%m%d-%H%M%S).dump"
pg_dump --format=custom --no-owner --file="$out" "$PGURL"
echo "$out"
