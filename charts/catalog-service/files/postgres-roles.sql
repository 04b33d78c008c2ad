DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'catalog_service_owner') THEN CREATE ROLE catalog_service_owner; END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $$;
ALTER ROLE catalog_service_owner LOGIN PASSWORD :'catalog_service_owner_password';
GRANT CONNECT, CREATE ON DATABASE catalog TO catalog_service_owner;
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'gateway_app') THEN CREATE ROLE gateway_app; END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $$;
ALTER ROLE gateway_app LOGIN PASSWORD :'gateway_app_password';
REVOKE catalog_service_owner FROM gateway_app;
DO $$
DECLARE item record;
BEGIN
  IF NOT EXISTS (SELECT FROM pg_namespace WHERE nspname = 'gateway') THEN RETURN; END IF;
  EXECUTE 'ALTER SCHEMA gateway OWNER TO catalog_service_owner';
  FOR item IN SELECT c.oid::regclass AS name, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE n.nspname = 'gateway' AND c.relowner <> 'catalog_service_owner'::regrole
                 AND (c.relkind IN ('r', 'p') OR (c.relkind = 'S' AND NOT EXISTS (
                   SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))))
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO catalog_service_owner', CASE item.relkind WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END, item.name);
  END LOOP;
  FOR item IN SELECT p.oid::regprocedure AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
               WHERE n.nspname = 'gateway' AND p.proowner <> 'catalog_service_owner'::regrole
  LOOP
    EXECUTE format('ALTER FUNCTION %s OWNER TO catalog_service_owner', item.name);
  END LOOP;
END $$;
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'catalog_app') THEN CREATE ROLE catalog_app; END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $$;
ALTER ROLE catalog_app LOGIN PASSWORD :'catalog_app_password';
REVOKE catalog_service_owner FROM catalog_app;
DO $$
DECLARE item record;
BEGIN
  IF NOT EXISTS (SELECT FROM pg_namespace WHERE nspname = 'catalog') THEN RETURN; END IF;
  EXECUTE 'ALTER SCHEMA catalog OWNER TO catalog_service_owner';
  FOR item IN SELECT c.oid::regclass AS name, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE n.nspname = 'catalog' AND c.relowner <> 'catalog_service_owner'::regrole
                 AND (c.relkind IN ('r', 'p') OR (c.relkind = 'S' AND NOT EXISTS (
                   SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))))
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO catalog_service_owner', CASE item.relkind WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END, item.name);
  END LOOP;
  FOR item IN SELECT p.oid::regprocedure AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
               WHERE n.nspname = 'catalog' AND p.proowner <> 'catalog_service_owner'::regrole
  LOOP
    EXECUTE format('ALTER FUNCTION %s OWNER TO catalog_service_owner', item.name);
  END LOOP;
END $$;
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'asset_app') THEN CREATE ROLE asset_app; END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $$;
ALTER ROLE asset_app LOGIN PASSWORD :'asset_app_password';
REVOKE catalog_service_owner FROM asset_app;
DO $$
DECLARE item record;
BEGIN
  IF NOT EXISTS (SELECT FROM pg_namespace WHERE nspname = 'asset') THEN RETURN; END IF;
  EXECUTE 'ALTER SCHEMA asset OWNER TO catalog_service_owner';
  FOR item IN SELECT c.oid::regclass AS name, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE n.nspname = 'asset' AND c.relowner <> 'catalog_service_owner'::regrole
                 AND (c.relkind IN ('r', 'p') OR (c.relkind = 'S' AND NOT EXISTS (
                   SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))))
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO catalog_service_owner', CASE item.relkind WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END, item.name);
  END LOOP;
  FOR item IN SELECT p.oid::regprocedure AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
               WHERE n.nspname = 'asset' AND p.proowner <> 'catalog_service_owner'::regrole
  LOOP
    EXECUTE format('ALTER FUNCTION %s OWNER TO catalog_service_owner', item.name);
  END LOOP;
END $$;
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'analysis_app') THEN CREATE ROLE analysis_app; END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $$;
ALTER ROLE analysis_app LOGIN PASSWORD :'analysis_app_password';
REVOKE catalog_service_owner FROM analysis_app;
DO $$
DECLARE item record;
BEGIN
  IF NOT EXISTS (SELECT FROM pg_namespace WHERE nspname = 'analysis') THEN RETURN; END IF;
  EXECUTE 'ALTER SCHEMA analysis OWNER TO catalog_service_owner';
  FOR item IN SELECT c.oid::regclass AS name, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE n.nspname = 'analysis' AND c.relowner <> 'catalog_service_owner'::regrole
                 AND (c.relkind IN ('r', 'p') OR (c.relkind = 'S' AND NOT EXISTS (
                   SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))))
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO catalog_service_owner', CASE item.relkind WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END, item.name);
  END LOOP;
  FOR item IN SELECT p.oid::regprocedure AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
               WHERE n.nspname = 'analysis' AND p.proowner <> 'catalog_service_owner'::regrole
  LOOP
    EXECUTE format('ALTER FUNCTION %s OWNER TO catalog_service_owner', item.name);
  END LOOP;
END $$;
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'events_app') THEN CREATE ROLE events_app; END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $$;
ALTER ROLE events_app LOGIN PASSWORD :'events_app_password';
REVOKE catalog_service_owner FROM events_app;
DO $$
DECLARE item record;
BEGIN
  IF NOT EXISTS (SELECT FROM pg_namespace WHERE nspname = 'events') THEN RETURN; END IF;
  EXECUTE 'ALTER SCHEMA events OWNER TO catalog_service_owner';
  FOR item IN SELECT c.oid::regclass AS name, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE n.nspname = 'events' AND c.relowner <> 'catalog_service_owner'::regrole
                 AND (c.relkind IN ('r', 'p') OR (c.relkind = 'S' AND NOT EXISTS (
                   SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))))
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO catalog_service_owner', CASE item.relkind WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END, item.name);
  END LOOP;
  FOR item IN SELECT p.oid::regprocedure AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
               WHERE n.nspname = 'events' AND p.proowner <> 'catalog_service_owner'::regrole
  LOOP
    EXECUTE format('ALTER FUNCTION %s OWNER TO catalog_service_owner', item.name);
  END LOOP;
END $$;
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'library_app') THEN CREATE ROLE library_app; END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $$;
ALTER ROLE library_app LOGIN PASSWORD :'library_app_password';
REVOKE catalog_service_owner FROM library_app;
DO $$
DECLARE item record;
BEGIN
  IF NOT EXISTS (SELECT FROM pg_namespace WHERE nspname = 'library') THEN RETURN; END IF;
  EXECUTE 'ALTER SCHEMA library OWNER TO catalog_service_owner';
  FOR item IN SELECT c.oid::regclass AS name, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE n.nspname = 'library' AND c.relowner <> 'catalog_service_owner'::regrole
                 AND (c.relkind IN ('r', 'p') OR (c.relkind = 'S' AND NOT EXISTS (
                   SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))))
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO catalog_service_owner', CASE item.relkind WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END, item.name);
  END LOOP;
  FOR item IN SELECT p.oid::regprocedure AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
               WHERE n.nspname = 'library' AND p.proowner <> 'catalog_service_owner'::regrole
  LOOP
    EXECUTE format('ALTER FUNCTION %s OWNER TO catalog_service_owner', item.name);
  END LOOP;
END $$;
