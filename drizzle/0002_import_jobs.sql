CREATE TABLE "import_job_failures" (
	"organization_id" bigint NOT NULL,
	"import_job_id" bigint NOT NULL,
	"row" bigint NOT NULL,
	"line" bigint NOT NULL,
	"field" text,
	"message" text NOT NULL,
	"seq" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "import_job_failures_organization_id_import_job_id_row_seq_pk" PRIMARY KEY("organization_id","import_job_id","row","seq")
);
--> statement-breakpoint
CREATE TABLE "import_jobs" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "import_jobs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"kind" text NOT NULL,
	"board_id" bigint,
	"status" text DEFAULT 'queued' NOT NULL,
	"options" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_by_membership_id" bigint NOT NULL,
	"file_name" text,
	"bytes_total" bigint NOT NULL,
	"byte_offset" bigint DEFAULT 0 NOT NULL,
	"line" bigint DEFAULT 0 NOT NULL,
	"delimiter" text,
	"rows_total" bigint,
	"rows_done" bigint DEFAULT 0 NOT NULL,
	"rows_created" bigint DEFAULT 0 NOT NULL,
	"rows_updated" bigint DEFAULT 0 NOT NULL,
	"rows_failed" bigint DEFAULT 0 NOT NULL,
	"error" text,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "import_jobs_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "import_jobs_status_check" CHECK ("import_jobs"."status" in ('queued','running','done','failed','cancelled')),
	CONSTRAINT "import_jobs_kind_check" CHECK ("import_jobs"."kind" in ('contacts','cards'))
);
--> statement-breakpoint
ALTER TABLE "import_job_failures" ADD CONSTRAINT "import_job_failures_job_fk" FOREIGN KEY ("organization_id","import_job_id") REFERENCES "public"."import_jobs"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "import_jobs_org_document_id_key" ON "import_jobs" USING btree ("organization_id","document_id");