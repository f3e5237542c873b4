ALTER TABLE "privacy_requests" ADD COLUMN "token_hash" text;--> statement-breakpoint
CREATE UNIQUE INDEX "privacy_requests_token_hash_key" ON "privacy_requests" USING btree ("token_hash");