CREATE TABLE "privacy_requests" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "privacy_requests_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"kind" text NOT NULL,
	"contact_id" bigint NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"error" text,
	"requested_by_membership_id" bigint,
	"file_bytes" bigint,
	"expires_at" timestamp with time zone,
	"downloaded_at" timestamp with time zone,
	"summary" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "privacy_requests_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "privacy_requests_org_document_id_key" ON "privacy_requests" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE INDEX "privacy_requests_org_contact_idx" ON "privacy_requests" USING btree ("organization_id","contact_id");