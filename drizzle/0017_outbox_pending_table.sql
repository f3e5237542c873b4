CREATE TABLE "domain_events_pending" (
	"organization_id" bigint NOT NULL,
	"id" bigint NOT NULL,
	CONSTRAINT "domain_events_pending_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
-- Added by hand: the events still waiting move to the new table before the flag goes.
INSERT INTO "domain_events_pending" ("organization_id", "id") SELECT "organization_id", "id" FROM "domain_events" WHERE NOT "dispatched";--> statement-breakpoint
DROP INDEX "domain_events_org_pending_idx";--> statement-breakpoint
ALTER TABLE "domain_events" DROP COLUMN "dispatched";