// The restore's own index, once every relationship is written.
DROP INDEX grimoire_restore_key IF EXISTS
