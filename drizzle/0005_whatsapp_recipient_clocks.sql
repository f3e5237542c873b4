CREATE TABLE "channel_recipient_clocks" (
	"organization_id" bigint NOT NULL,
	"channel_id" bigint NOT NULL,
	"recipient" text NOT NULL,
	"next_at" timestamp with time zone NOT NULL,
	CONSTRAINT "channel_recipient_clocks_organization_id_channel_id_recipient_pk" PRIMARY KEY("organization_id","channel_id","recipient")
);
--> statement-breakpoint
ALTER TABLE "channel_recipient_clocks" ADD CONSTRAINT "channel_recipient_clocks_channel_fk" FOREIGN KEY ("organization_id","channel_id") REFERENCES "public"."chat_channels"("organization_id","id") ON DELETE cascade ON UPDATE no action;