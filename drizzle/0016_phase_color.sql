ALTER TABLE "phases" ADD COLUMN "color" text;--> statement-breakpoint
ALTER TABLE "phases" ADD CONSTRAINT "phases_color_check" CHECK (color is null or color ~ '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$');