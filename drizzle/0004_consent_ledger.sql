CREATE TABLE "contact_consent_states" (
	"organization_id" bigint NOT NULL,
	"contact_id" bigint NOT NULL,
	"channel" text NOT NULL,
	"purpose" text NOT NULL,
	"status" text NOT NULL,
	"consent_id" bigint NOT NULL,
	"recorded_at" timestamp with time zone NOT NULL,
	CONSTRAINT "contact_consent_states_organization_id_contact_id_channel_purpose_pk" PRIMARY KEY("organization_id","contact_id","channel","purpose")
);
--> statement-breakpoint
CREATE TABLE "contact_consents" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "contact_consents_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"contact_id" bigint NOT NULL,
	"channel" text NOT NULL,
	"purpose" text NOT NULL,
	"status" text NOT NULL,
	"legal_basis" text NOT NULL,
	"source" text NOT NULL,
	"proof" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL,
	"recorded_by" bigint,
	CONSTRAINT "contact_consents_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "contact_consents_proof_object" CHECK (jsonb_typeof(proof) = 'object')
);
--> statement-breakpoint
ALTER TABLE "lead_form_routes" ADD COLUMN "consent_capture" jsonb;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "marketing_requires_consent" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "consent_stop_keywords" text[] DEFAULT '{PARAR,STOP,SAIR,DESCADASTRAR}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "contact_consent_states" ADD CONSTRAINT "contact_consent_states_contact_fk" FOREIGN KEY ("organization_id","contact_id") REFERENCES "public"."contacts"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_consents" ADD CONSTRAINT "contact_consents_contact_fk" FOREIGN KEY ("organization_id","contact_id") REFERENCES "public"."contacts"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "contact_consents_org_document_id_key" ON "contact_consents" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE INDEX "contact_consents_org_contact_idx" ON "contact_consents" USING btree ("organization_id","contact_id","channel","purpose","recorded_at" DESC NULLS LAST,"id" DESC NULLS LAST);