#!/bin/sh
# Run once by the postgres image when the primary's data directory is created
# (docker-entrypoint-initdb.d): a role the replica streams WAL as, and the
# pg_hba.conf line that lets it. wal_level=replica and max_wal_senders=10 are
# PostgreSQL's defaults already.
set -e
psql -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d "$POSTGRES_DB" \
  -c "CREATE ROLE replicator WITH REPLICATION LOGIN PASSWORD '${REPLICATION_PASSWORD:-replicator}'"
echo "host replication replicator all scram-sha-256" >> "$PGDATA/pg_hba.conf"
