CREATE TABLE "organization_exports" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "organization_exports_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"requested_by" bigint NOT NULL,
	"token_hash" text NOT NULL,
	"bytes" bigint,
	"rows" bigint,
	"files" bigint,
	"error" text,
	"expires_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	"downloaded_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "organization_exports_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "organization_exports_status_check" CHECK ("organization_exports"."status" in ('queued','running','done','failed'))
);
--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "retention" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "deletion_scheduled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "deletion_requested_by" bigint;--> statement-breakpoint
CREATE UNIQUE INDEX "organization_exports_org_document_id_key" ON "organization_exports" USING btree ("organization_id","document_id");