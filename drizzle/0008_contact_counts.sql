CREATE TABLE "contact_count_deltas" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "contact_count_deltas_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"contact_count" bigint NOT NULL,
	CONSTRAINT "contact_count_deltas_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "contact_counts" (
	"organization_id" bigint PRIMARY KEY NOT NULL,
	"contact_count" bigint NOT NULL
);
