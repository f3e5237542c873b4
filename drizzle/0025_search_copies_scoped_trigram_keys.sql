DROP INDEX "card_title_search_trgm_idx";--> statement-breakpoint
DROP INDEX "contact_name_search_trgm_idx";--> statement-breakpoint
CREATE INDEX "card_title_search_keys_idx" ON "card_title_search" USING gin (crm_trgm_keys("board_id", "title"));--> statement-breakpoint
CREATE INDEX "contact_name_search_keys_idx" ON "contact_name_search" USING gin (crm_trgm_keys("organization_id", "name"));