#!/bin/sh
# Postgres's first start (docker-entrypoint-initdb.d) in deploy/compose.yaml: the schema owner and
# one login role per service (decision 0057) in the database POSTGRES_DB, with the passwords of
# .env. The statements are charts/catalog-service/files/postgres-roles.sql (`npm run db:setup --
# --print-sql catalog`); run this again (docker compose exec postgres sh /docker-entrypoint-initdb.d/10-roles.sh)
# after changing a password.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v catalog_service_owner_password="$CATALOG_SERVICE_OWNER_PASSWORD" \
  -v gateway_app_password="$GATEWAY_APP_PASSWORD" \
  -v catalog_app_password="$CATALOG_APP_PASSWORD" \
  -v asset_app_password="$ASSET_APP_PASSWORD" \
  -v analysis_app_password="$ANALYSIS_APP_PASSWORD" \
  -v events_app_password="$EVENTS_APP_PASSWORD" \
  -v library_app_password="$LIBRARY_APP_PASSWORD" \
  -f /catalog/postgres-roles.sql
