ALTER TABLE "contacts" drop column "search_text";--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "search_text" text GENERATED ALWAYS AS (crm_fold(coalesce(name, '') || ' ' || coalesce(email, '') || ' ' || coalesce(phone, '') || ' ' || coalesce(cpf, '') || ' ' || coalesce(cnpj, ''))) STORED;--> statement-breakpoint
-- Dropping the column dropped its index (drizzle-kit does not know): made again over the folded text.
CREATE INDEX "contacts_search_idx" ON "contacts" USING gin ("organization_id","search_text" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "cards_text_fold_trgm_idx" ON "cards" USING gin ("organization_id","board_id",crm_fold("title") gin_trgm_ops,crm_fold("description") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "contacts_text_fold_trgm_idx" ON "contacts" USING gin ("organization_id",crm_fold("name") gin_trgm_ops,crm_fold("email") gin_trgm_ops,crm_fold("phone") gin_trgm_ops,crm_fold("city") gin_trgm_ops);