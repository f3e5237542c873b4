CREATE SEQUENCE "public"."board_structure_versions" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "calendar_connections" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "calendar_connections_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"membership_id" bigint NOT NULL,
	"provider" text DEFAULT 'caldav' NOT NULL,
	"url" text NOT NULL,
	"username" text NOT NULL,
	"password_sealed" text NOT NULL,
	"calendar_url" text NOT NULL,
	"display_name" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "calendar_connections_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "calendar_connections_provider_check" CHECK (provider in ('caldav'))
);
--> statement-breakpoint
CREATE TABLE "calendar_meetings" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "calendar_meetings_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"card_id" bigint NOT NULL,
	"organizer_membership_id" bigint,
	"uid" text NOT NULL,
	"object_url" text NOT NULL,
	"etag" text,
	"sequence" integer DEFAULT 0 NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"location" text,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"attendees" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"status" text DEFAULT 'scheduled' NOT NULL,
	"cancelled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "calendar_meetings_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "calendar_meetings_status_check" CHECK (status in ('scheduled', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "agent_confirmations" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "agent_confirmations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"membership_id" bigint NOT NULL,
	"tool" text NOT NULL,
	"summary" text NOT NULL,
	"arguments" jsonb NOT NULL,
	"arguments_hash" text NOT NULL,
	"preview" jsonb,
	"status" text DEFAULT 'pending' NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"decided_at" timestamp with time zone,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_confirmations_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "automation_runs" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "automation_runs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"automation_id" bigint NOT NULL,
	"event_id" text NOT NULL,
	"event_type" text NOT NULL,
	"subject" text NOT NULL,
	"event" jsonb NOT NULL,
	"depth" integer DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"results" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"message" text,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "automation_runs_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "automation_runs_status_check" CHECK (status in ('pending', 'succeeded', 'failed', 'skipped'))
);
--> statement-breakpoint
CREATE TABLE "automations" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "automations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"name" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"board_id" bigint,
	"trigger_event" text NOT NULL,
	"conditions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"actions" jsonb NOT NULL,
	"actor_membership_id" bigint NOT NULL,
	"secret_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "automations_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "board_members" (
	"organization_id" bigint NOT NULL,
	"board_id" bigint NOT NULL,
	"membership_id" bigint NOT NULL,
	"kind" text NOT NULL,
	CONSTRAINT "board_members_organization_id_board_id_kind_membership_id_pk" PRIMARY KEY("organization_id","board_id","kind","membership_id"),
	CONSTRAINT "board_members_kind_check" CHECK (kind in ('member', 'editor'))
);
--> statement-breakpoint
CREATE TABLE "boards" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "boards_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"board_type" text DEFAULT 'kanban' NOT NULL,
	"icon" text,
	"color" text,
	"template" text,
	"task_statuses" text[] DEFAULT ARRAY['pending','in-progress','completed','cancelled']::text[] NOT NULL,
	"show_value" boolean DEFAULT false NOT NULL,
	"currency" text DEFAULT 'USD' NOT NULL,
	"won_phase_id" bigint,
	"lost_phase_id" bigint,
	"restrict_edit_to_assignees" boolean DEFAULT false NOT NULL,
	"restrict_view_to_assignees" boolean DEFAULT false NOT NULL,
	"enable_products" boolean DEFAULT false NOT NULL,
	"auto_update_card_value" boolean DEFAULT false NOT NULL,
	"auto_update_due_date_from_phase" boolean DEFAULT false NOT NULL,
	"owner_membership_id" bigint,
	"structure_version" bigint DEFAULT nextval('board_structure_versions') NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "boards_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "boards_board_type_check" CHECK (board_type in ('kanban', 'chat', 'hybrid'))
);
--> statement-breakpoint
CREATE TABLE "field_conditions" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "field_conditions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"board_id" bigint NOT NULL,
	"phase_id" bigint,
	"name" text NOT NULL,
	"scope" text DEFAULT 'phase' NOT NULL,
	"order" integer DEFAULT 0 NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"criteria" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"actions_when_true" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"actions_when_false" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "field_conditions_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "field_conditions_scope_check" CHECK (scope in ('phase', 'board'))
);
--> statement-breakpoint
CREATE TABLE "field_definitions" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "field_definitions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"board_id" bigint NOT NULL,
	"phase_id" bigint NOT NULL,
	"label" text NOT NULL,
	"slug" text NOT NULL,
	"type" text NOT NULL,
	"order" integer DEFAULT 0 NOT NULL,
	"required" boolean DEFAULT false NOT NULL,
	"placeholder" text,
	"help_text" text,
	"default_value" text,
	"options" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "field_definitions_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "field_definitions_type_check" CHECK (type in ('text', 'textarea', 'richtext', 'email', 'number', 'date', 'datetime', 'select', 'multiselect', 'radio', 'switch', 'file', 'url', 'phone', 'card_link', 'hidden', 'statement', 'time', 'currency', 'document', 'checkbox'))
);
--> statement-breakpoint
CREATE TABLE "phases" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "phases_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"board_id" bigint NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"order" integer NOT NULL,
	"is_public" boolean DEFAULT false NOT NULL,
	"description" text,
	"max_time_in_phase_hours" integer,
	"allowed_transitions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "phases_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "phases_order_check" CHECK ("order" >= 0),
	CONSTRAINT "phases_max_time_check" CHECK (max_time_in_phase_hours is null or max_time_in_phase_hours between 1 and 8760)
);
--> statement-breakpoint
CREATE TABLE "tags" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "tags_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"board_id" bigint NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"color" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tags_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "tags_color_check" CHECK (color is null or color ~ '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$')
);
--> statement-breakpoint
CREATE TABLE "campaign_recipients" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "campaign_recipients_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"campaign_id" bigint NOT NULL,
	"contact_id" bigint NOT NULL,
	"address" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"skip_reason" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"claimed_at" timestamp with time zone,
	"provider_message_id" text,
	"error" text,
	"sent_at" timestamp with time zone,
	"delivered_at" timestamp with time zone,
	"opened_at" timestamp with time zone,
	"clicked_at" timestamp with time zone,
	"bounced_at" timestamp with time zone,
	"complained_at" timestamp with time zone,
	CONSTRAINT "campaign_recipients_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "campaigns" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "campaigns_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"channel_id" bigint NOT NULL,
	"segment_id" bigint,
	"email_template_id" bigint,
	"whatsapp_template_id" bigint,
	"status" text DEFAULT 'draft' NOT NULL,
	"variables" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"message_config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"scheduled_at" timestamp with time zone,
	"started_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"heartbeat_at" timestamp with time zone,
	"error" text,
	"created_by" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "campaigns_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "suppressions" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "suppressions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"address" text NOT NULL,
	"reason" text NOT NULL,
	"campaign_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "suppressions_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "suppressions_address_check" CHECK (address = lower(address))
);
--> statement-breakpoint
CREATE TABLE "card_assignees" (
	"organization_id" bigint NOT NULL,
	"card_id" bigint NOT NULL,
	"membership_id" bigint NOT NULL,
	CONSTRAINT "card_assignees_organization_id_card_id_membership_id_pk" PRIMARY KEY("organization_id","card_id","membership_id")
);
--> statement-breakpoint
CREATE TABLE "card_count_deltas" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "card_count_deltas_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"board_id" bigint NOT NULL,
	"phase_id" bigint NOT NULL,
	"due_day" date NOT NULL,
	"card_count" bigint NOT NULL,
	"value_sum" numeric(20, 2) NOT NULL,
	CONSTRAINT "card_count_deltas_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "card_counts" (
	"organization_id" bigint NOT NULL,
	"board_id" bigint NOT NULL,
	"phase_id" bigint NOT NULL,
	"due_day" date NOT NULL,
	"card_count" bigint NOT NULL,
	"value_sum" numeric(20, 2) NOT NULL,
	CONSTRAINT "card_counts_organization_id_board_id_phase_id_due_day_pk" PRIMARY KEY("organization_id","board_id","phase_id","due_day")
);
--> statement-breakpoint
CREATE TABLE "card_files" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "card_files_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"board_id" bigint NOT NULL,
	"card_id" bigint,
	"name" text NOT NULL,
	"mime_type" text NOT NULL,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"storage_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "card_files_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "card_report_deltas" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "card_report_deltas_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"board_id" bigint NOT NULL,
	"kind" text NOT NULL,
	"key" bigint NOT NULL,
	"day" date NOT NULL,
	"card_count" bigint NOT NULL,
	"value_sum" numeric(20, 2) NOT NULL,
	CONSTRAINT "card_report_deltas_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "card_report_rollups" (
	"organization_id" bigint NOT NULL,
	"board_id" bigint NOT NULL,
	"kind" text NOT NULL,
	"key" bigint NOT NULL,
	"day" date NOT NULL,
	"card_count" bigint NOT NULL,
	"value_sum" numeric(20, 2) NOT NULL,
	CONSTRAINT "card_report_rollups_organization_id_board_id_day_kind_key_pk" PRIMARY KEY("organization_id","board_id","day","kind","key")
);
--> statement-breakpoint
CREATE TABLE "card_report_tombstones" (
	"organization_id" bigint NOT NULL,
	"card_id" bigint NOT NULL,
	"board_id" bigint NOT NULL,
	"day" date NOT NULL,
	"value" numeric(14, 2) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "card_tags" (
	"organization_id" bigint NOT NULL,
	"card_id" bigint NOT NULL,
	"tag_id" bigint NOT NULL,
	CONSTRAINT "card_tags_organization_id_card_id_tag_id_pk" PRIMARY KEY("organization_id","card_id","tag_id")
);
--> statement-breakpoint
CREATE TABLE "card_title_search" (
	"organization_id" bigint NOT NULL,
	"card_id" bigint NOT NULL,
	"board_id" bigint NOT NULL,
	"phase_id" bigint,
	"phase_entered_at" timestamp with time zone NOT NULL,
	"due_date" timestamp with time zone,
	"value" numeric(14, 2) NOT NULL,
	"title" text NOT NULL,
	CONSTRAINT "card_title_search_organization_id_board_id_card_id_pk" PRIMARY KEY("organization_id","board_id","card_id")
);
--> statement-breakpoint
CREATE TABLE "cards" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "cards_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"board_id" bigint NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"value" numeric(14, 2) DEFAULT 0 NOT NULL,
	"due_date" timestamp with time zone,
	"due_date_source" text,
	"current_phase_id" bigint,
	"current_phase_entered_at" timestamp with time zone DEFAULT now() NOT NULL,
	"contact_id" bigint,
	"creation_source" text DEFAULT 'api' NOT NULL,
	"tracking" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"fields" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cards_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "cards_due_date_source_check" CHECK (due_date_source is null or due_date_source in ('manual', 'phase', 'automation')),
	CONSTRAINT "cards_creation_source_check" CHECK (creation_source in ('manual', 'form', 'lead_ads', 'automation', 'chat_inbound', 'import', 'api'))
);
--> statement-breakpoint
CREATE TABLE "comments" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "comments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"card_id" bigint NOT NULL,
	"content" text NOT NULL,
	"content_format" text DEFAULT 'plain' NOT NULL,
	"type" text DEFAULT 'user' NOT NULL,
	"activity_type" text,
	"mentions" text[] DEFAULT '{}'::text[] NOT NULL,
	"author_membership_id" bigint,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "comments_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "comments_content_format_check" CHECK (content_format in ('plain', 'html')),
	CONSTRAINT "comments_type_check" CHECK (type in ('user', 'system'))
);
--> statement-breakpoint
CREATE TABLE "board_chat_channels" (
	"organization_id" bigint NOT NULL,
	"board_id" bigint NOT NULL,
	"channel_id" bigint NOT NULL,
	CONSTRAINT "board_chat_channels_organization_id_board_id_channel_id_pk" PRIMARY KEY("organization_id","board_id","channel_id")
);
--> statement-breakpoint
CREATE TABLE "chat_channels" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "chat_channels_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"credentials" text,
	"send_window_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_channels_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "contact_activities" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "contact_activities_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"contact_id" bigint NOT NULL,
	"activity_type" text NOT NULL,
	"description" text NOT NULL,
	"performed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor_id" bigint,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "contact_activities_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "contact_name_search" (
	"organization_id" bigint NOT NULL,
	"contact_id" bigint NOT NULL,
	"name" text NOT NULL,
	CONSTRAINT "contact_name_search_organization_id_contact_id_pk" PRIMARY KEY("organization_id","contact_id")
);
--> statement-breakpoint
CREATE TABLE "contacts" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "contacts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"name" text NOT NULL,
	"email" text,
	"phone" text,
	"contact_type" text DEFAULT 'pessoa' NOT NULL,
	"cpf" text,
	"cnpj" text,
	"address" text,
	"city" text,
	"state" text,
	"country" text,
	"postal_code" text,
	"birthdate" date,
	"first_buy_date" date,
	"owner_id" bigint,
	"owned_at" timestamp with time zone,
	"team_id" bigint,
	"custom_fields" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"search_text" text GENERATED ALWAYS AS (lower(coalesce(name, '') || ' ' || coalesce(email, '') || ' ' || coalesce(phone, '') || ' ' || coalesce(cpf, '') || ' ' || coalesce(cnpj, ''))) STORED,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "contacts_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "conversion_events" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "conversion_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"pixel_id" bigint NOT NULL,
	"dedup_id" text NOT NULL,
	"event_name" text NOT NULL,
	"card_document_id" text,
	"event_time" timestamp with time zone NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"payload" jsonb,
	"response" jsonb,
	"last_error" text,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "conversion_events_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "conversion_events_status_check" CHECK (status in ('pending', 'sent', 'failed', 'skipped', 'test'))
);
--> statement-breakpoint
CREATE TABLE "conversion_pixels" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "conversion_pixels_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"name" text NOT NULL,
	"pixel_id" text NOT NULL,
	"access_token_sealed" text NOT NULL,
	"board_id" bigint NOT NULL,
	"trigger_type" text NOT NULL,
	"trigger_phase_id" bigint,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "conversion_pixels_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "conversion_pixels_trigger_check" CHECK (trigger_type in ('won', 'phase'))
);
--> statement-breakpoint
CREATE TABLE "distribution_queue_members" (
	"organization_id" bigint NOT NULL,
	"queue_id" bigint NOT NULL,
	"membership_id" bigint NOT NULL,
	"weight" integer DEFAULT 1 NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"current_weight" integer DEFAULT 0 NOT NULL,
	"assigned_count" integer DEFAULT 0 NOT NULL,
	"last_assigned_at" timestamp with time zone,
	CONSTRAINT "distribution_queue_members_organization_id_queue_id_membership_id_pk" PRIMARY KEY("organization_id","queue_id","membership_id"),
	CONSTRAINT "distribution_queue_members_weight_check" CHECK (weight between 1 and 100)
);
--> statement-breakpoint
CREATE TABLE "distribution_queues" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "distribution_queues_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"name" text NOT NULL,
	"board_id" bigint,
	"inbox_id" bigint,
	"strategy" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"last_membership_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "distribution_queues_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "distribution_queues_target_check" CHECK ((board_id is null) <> (inbox_id is null)),
	CONSTRAINT "distribution_queues_strategy_check" CHECK (strategy in ('round_robin', 'weighted', 'least_open'))
);
--> statement-breakpoint
CREATE TABLE "email_assets" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "email_assets_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"filename" text NOT NULL,
	"mime_type" text NOT NULL,
	"size" integer NOT NULL,
	"sha256" text NOT NULL,
	"content" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "email_assets_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "email_templates" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "email_templates_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"name" text NOT NULL,
	"subject" text NOT NULL,
	"html" text NOT NULL,
	"text" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "email_templates_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "chat_inboxes" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "chat_inboxes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"channel_id" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_inboxes_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "chat_messages" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "chat_messages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"conversation_id" bigint NOT NULL,
	"direction" text NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"content_type" text NOT NULL,
	"attachments" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"template" jsonb,
	"status" text NOT NULL,
	"error" text,
	"sender_membership_id" bigint,
	"provider_message_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_messages_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "conversations" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "conversations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"inbox_id" bigint NOT NULL,
	"wa_id" text NOT NULL,
	"contact_id" bigint,
	"status" text DEFAULT 'open' NOT NULL,
	"snoozed_until" timestamp with time zone,
	"assignee_membership_id" bigint,
	"unread_count" integer DEFAULT 0 NOT NULL,
	"last_message_at" timestamp with time zone,
	"last_incoming_at" timestamp with time zone,
	"last_message_preview" text,
	"card_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "conversations_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "invitations" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "invitations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"token_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"invited_by_membership_id" bigint,
	"responded_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "invitations_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "lead_deliveries" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "lead_deliveries_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"route_id" bigint NOT NULL,
	"leadgen_id" text NOT NULL,
	"page_id" text NOT NULL,
	"form_id" text NOT NULL,
	"ad_id" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"card_id" bigint,
	"card_document_id" text,
	"contact_document_id" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"processed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "lead_deliveries_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "lead_form_routes" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "lead_form_routes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"name" text NOT NULL,
	"integration_id" bigint NOT NULL,
	"board_id" bigint NOT NULL,
	"page_id" text NOT NULL,
	"form_id" text NOT NULL,
	"form_name" text,
	"field_mapping" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "lead_form_routes_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "lead_integration_pages" (
	"organization_id" bigint NOT NULL,
	"integration_id" bigint NOT NULL,
	"page_id" text NOT NULL,
	"name" text NOT NULL,
	"credentials" text NOT NULL,
	CONSTRAINT "lead_integration_pages_organization_id_integration_id_page_id_pk" PRIMARY KEY("organization_id","integration_id","page_id")
);
--> statement-breakpoint
CREATE TABLE "lead_integrations" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "lead_integrations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"name" text NOT NULL,
	"provider_user_id" text NOT NULL,
	"provider_user_name" text,
	"status" text DEFAULT 'connected' NOT NULL,
	"status_message" text,
	"credentials" text NOT NULL,
	"token_expires_at" timestamp with time zone,
	"connected_by_membership_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "lead_integrations_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "notifications_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"membership_id" bigint NOT NULL,
	"type" text NOT NULL,
	"title" text NOT NULL,
	"body" text DEFAULT '' NOT NULL,
	"subject" jsonb NOT NULL,
	"dedupe_key" text NOT NULL,
	"read_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notifications_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "memberships" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "memberships_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"user_id" bigint NOT NULL,
	"role" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memberships_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "organizations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"plan" text NOT NULL,
	"time_zone" text DEFAULT 'America/Sao_Paulo' NOT NULL,
	"jobs_namespace" text DEFAULT coalesce(current_setting('crm.jobs_namespace', true), '') NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pdf_templates" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "pdf_templates_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"name" text NOT NULL,
	"kind" text DEFAULT 'quote' NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"layout" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pdf_templates_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "pdf_templates_kind_check" CHECK (kind in ('quote'))
);
--> statement-breakpoint
CREATE TABLE "product_categories" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "product_categories_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "product_categories_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "card_products" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "card_products_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"card_id" bigint NOT NULL,
	"product_id" bigint,
	"name" text NOT NULL,
	"sku" text NOT NULL,
	"unit" text,
	"quantity" numeric(14, 3) NOT NULL,
	"unit_price" numeric(14, 2) NOT NULL,
	"discount" numeric(5, 2) DEFAULT 0 NOT NULL,
	"total" numeric(14, 2) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "card_products_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "card_products_quantity_check" CHECK (quantity > 0),
	CONSTRAINT "card_products_discount_check" CHECK (discount between 0 and 100)
);
--> statement-breakpoint
CREATE TABLE "products" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "products_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"name" text NOT NULL,
	"sku" text NOT NULL,
	"price" numeric(14, 2) NOT NULL,
	"min_price" numeric(14, 2),
	"description" text,
	"unit" text,
	"active" boolean DEFAULT true NOT NULL,
	"category_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "products_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "products_price_check" CHECK (price >= 0),
	CONSTRAINT "products_min_price_check" CHECK (min_price is null or min_price >= 0)
);
--> statement-breakpoint
CREATE TABLE "quote_counters" (
	"organization_id" bigint PRIMARY KEY NOT NULL,
	"last_number" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "quote_items" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "quote_items_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"quote_id" bigint NOT NULL,
	"position" integer NOT NULL,
	"product_id" bigint,
	"name" text NOT NULL,
	"sku" text NOT NULL,
	"unit" text,
	"quantity" numeric(14, 3) NOT NULL,
	"unit_price" numeric(14, 2) NOT NULL,
	"discount" numeric(5, 2) DEFAULT 0 NOT NULL,
	"total" numeric(14, 2) NOT NULL,
	CONSTRAINT "quote_items_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "quote_items_quantity_check" CHECK (quantity > 0),
	CONSTRAINT "quote_items_discount_check" CHECK (discount between 0 and 100)
);
--> statement-breakpoint
CREATE TABLE "quotes" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "quotes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"number" integer NOT NULL,
	"title" text,
	"status" text DEFAULT 'draft' NOT NULL,
	"valid_until" date,
	"currency" text DEFAULT 'USD' NOT NULL,
	"notes" text,
	"card_id" bigint,
	"contact_id" bigint,
	"owner_id" bigint,
	"subtotal" numeric(14, 2) DEFAULT 0 NOT NULL,
	"discount" numeric(14, 2) DEFAULT 0 NOT NULL,
	"total" numeric(14, 2) DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "quotes_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "quotes_status_check" CHECK (status in ('draft', 'sent', 'accepted', 'rejected', 'expired'))
);
--> statement-breakpoint
CREATE TABLE "saved_filters" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "saved_filters_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"name" text NOT NULL,
	"resource" text NOT NULL,
	"board_id" bigint,
	"query" jsonb NOT NULL,
	"visibility" text NOT NULL,
	"owner_membership_id" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "saved_filters_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "saved_filters_resource_check" CHECK (resource in ('cards', 'contacts', 'tasks')),
	CONSTRAINT "saved_filters_visibility_check" CHECK (visibility in ('private', 'organization'))
);
--> statement-breakpoint
CREATE TABLE "segment_links" (
	"organization_id" bigint NOT NULL,
	"segment_id" bigint NOT NULL,
	"linked_segment_id" bigint NOT NULL,
	"kind" text NOT NULL,
	"position" integer NOT NULL,
	CONSTRAINT "segment_links_organization_id_segment_id_linked_segment_id_pk" PRIMARY KEY("organization_id","segment_id","linked_segment_id")
);
--> statement-breakpoint
CREATE TABLE "segments" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "segments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"active" boolean DEFAULT true NOT NULL,
	"filters" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "segments_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "task_assignees" (
	"organization_id" bigint NOT NULL,
	"task_id" bigint NOT NULL,
	"membership_id" bigint NOT NULL,
	CONSTRAINT "task_assignees_organization_id_task_id_membership_id_pk" PRIMARY KEY("organization_id","task_id","membership_id")
);
--> statement-breakpoint
CREATE TABLE "tasks" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "tasks_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"due_date" timestamp with time zone,
	"type" text DEFAULT 'reminder' NOT NULL,
	"task_status" text NOT NULL,
	"completed_at" timestamp with time zone,
	"card_id" bigint,
	"priority" text DEFAULT 'medium' NOT NULL,
	"recurrence" text DEFAULT 'none' NOT NULL,
	"recurrence_interval" integer DEFAULT 1 NOT NULL,
	"recurrence_parent_id" bigint,
	"occurrence_number" integer DEFAULT 1 NOT NULL,
	"reminder_job_id" text,
	"created_by_membership_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tasks_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "tasks_type_check" CHECK (type in ('reminder', 'follow-up', 'action', 'other')),
	CONSTRAINT "tasks_priority_check" CHECK (priority in ('low', 'medium', 'high', 'urgent')),
	CONSTRAINT "tasks_recurrence_check" CHECK (recurrence in ('none', 'daily', 'weekly', 'monthly')),
	CONSTRAINT "tasks_recurrence_interval_check" CHECK (recurrence_interval between 1 and 365)
);
--> statement-breakpoint
CREATE TABLE "team_members" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "team_members_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"team_id" bigint NOT NULL,
	"membership_id" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "team_members_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "teams" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "teams_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "teams_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "whatsapp_templates" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "whatsapp_templates_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"channel_id" bigint NOT NULL,
	"name" text NOT NULL,
	"language" text NOT NULL,
	"category" text NOT NULL,
	"status" text NOT NULL,
	"components" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"external_id" text,
	"synced_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "whatsapp_templates_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "api_tokens" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "api_tokens_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"user_id" bigint NOT NULL,
	"name" text NOT NULL,
	"token_hash" text NOT NULL,
	"token_prefix" text NOT NULL,
	"scopes" text[],
	"expires_at" timestamp with time zone NOT NULL,
	"last_used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "users_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"username" text NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"blocked" boolean DEFAULT false NOT NULL,
	"confirmed" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "webhook_deliveries_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"subscription_id" bigint NOT NULL,
	"event_id" text NOT NULL,
	"event_type" text NOT NULL,
	"subject" text DEFAULT '' NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_status_code" integer,
	"last_error" text,
	"delivered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "webhook_deliveries_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "webhook_deliveries_status_check" CHECK (status in ('pending', 'delivered', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "webhook_subscriptions" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "webhook_subscriptions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"document_id" text NOT NULL,
	"url" text NOT NULL,
	"events" text[] NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"secret_sealed" text NOT NULL,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"disabled_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "webhook_subscriptions_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "audit_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"actor_user_id" bigint,
	"action" text NOT NULL,
	"entity_document_id" text,
	"data" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "audit_log_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "domain_events" (
	"organization_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "domain_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"event_id" text NOT NULL,
	"type" text NOT NULL,
	"subject" text NOT NULL,
	"data" jsonb NOT NULL,
	"depth" integer DEFAULT 0 NOT NULL,
	"dispatched" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "domain_events_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"user_id" bigint NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"status_code" integer,
	"response_body" jsonb,
	"lease_token" uuid,
	"locked_until" timestamp with time zone,
	"committed" boolean DEFAULT false NOT NULL,
	"provisional_body" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_keys_user_id_key_pk" PRIMARY KEY("user_id","key")
);
--> statement-breakpoint
CREATE TABLE "instance_secrets" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "calendar_connections" ADD CONSTRAINT "calendar_connections_membership_fk" FOREIGN KEY ("organization_id","membership_id") REFERENCES "public"."memberships"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_meetings" ADD CONSTRAINT "calendar_meetings_card_fk" FOREIGN KEY ("organization_id","card_id") REFERENCES "public"."cards"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_confirmations" ADD CONSTRAINT "agent_confirmations_membership_fk" FOREIGN KEY ("organization_id","membership_id") REFERENCES "public"."memberships"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "automation_runs" ADD CONSTRAINT "automation_runs_automation_fk" FOREIGN KEY ("organization_id","automation_id") REFERENCES "public"."automations"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "board_members" ADD CONSTRAINT "board_members_board_fk" FOREIGN KEY ("organization_id","board_id") REFERENCES "public"."boards"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "board_members" ADD CONSTRAINT "board_members_membership_fk" FOREIGN KEY ("organization_id","membership_id") REFERENCES "public"."memberships"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "field_conditions" ADD CONSTRAINT "field_conditions_board_fk" FOREIGN KEY ("organization_id","board_id") REFERENCES "public"."boards"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "field_conditions" ADD CONSTRAINT "field_conditions_phase_fk" FOREIGN KEY ("organization_id","phase_id") REFERENCES "public"."phases"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "field_definitions" ADD CONSTRAINT "field_definitions_board_fk" FOREIGN KEY ("organization_id","board_id") REFERENCES "public"."boards"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "field_definitions" ADD CONSTRAINT "field_definitions_phase_fk" FOREIGN KEY ("organization_id","phase_id") REFERENCES "public"."phases"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phases" ADD CONSTRAINT "phases_board_fk" FOREIGN KEY ("organization_id","board_id") REFERENCES "public"."boards"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tags" ADD CONSTRAINT "tags_board_fk" FOREIGN KEY ("organization_id","board_id") REFERENCES "public"."boards"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_recipients" ADD CONSTRAINT "campaign_recipients_campaign_fk" FOREIGN KEY ("organization_id","campaign_id") REFERENCES "public"."campaigns"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_channel_fk" FOREIGN KEY ("organization_id","channel_id") REFERENCES "public"."chat_channels"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_email_template_fk" FOREIGN KEY ("organization_id","email_template_id") REFERENCES "public"."email_templates"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "card_assignees" ADD CONSTRAINT "card_assignees_card_fk" FOREIGN KEY ("organization_id","card_id") REFERENCES "public"."cards"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "card_assignees" ADD CONSTRAINT "card_assignees_membership_fk" FOREIGN KEY ("organization_id","membership_id") REFERENCES "public"."memberships"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "card_files" ADD CONSTRAINT "card_files_board_fk" FOREIGN KEY ("organization_id","board_id") REFERENCES "public"."boards"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "card_files" ADD CONSTRAINT "card_files_card_fk" FOREIGN KEY ("organization_id","card_id") REFERENCES "public"."cards"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "card_tags" ADD CONSTRAINT "card_tags_card_fk" FOREIGN KEY ("organization_id","card_id") REFERENCES "public"."cards"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "card_tags" ADD CONSTRAINT "card_tags_tag_fk" FOREIGN KEY ("organization_id","tag_id") REFERENCES "public"."tags"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cards" ADD CONSTRAINT "cards_board_fk" FOREIGN KEY ("organization_id","board_id") REFERENCES "public"."boards"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_card_fk" FOREIGN KEY ("organization_id","card_id") REFERENCES "public"."cards"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "board_chat_channels" ADD CONSTRAINT "board_chat_channels_board_fk" FOREIGN KEY ("organization_id","board_id") REFERENCES "public"."boards"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "board_chat_channels" ADD CONSTRAINT "board_chat_channels_channel_fk" FOREIGN KEY ("organization_id","channel_id") REFERENCES "public"."chat_channels"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_activities" ADD CONSTRAINT "contact_activities_organization_id_contact_id_contacts_organization_id_id_fk" FOREIGN KEY ("organization_id","contact_id") REFERENCES "public"."contacts"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversion_events" ADD CONSTRAINT "conversion_events_pixel_fk" FOREIGN KEY ("organization_id","pixel_id") REFERENCES "public"."conversion_pixels"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "distribution_queue_members" ADD CONSTRAINT "distribution_queue_members_queue_fk" FOREIGN KEY ("organization_id","queue_id") REFERENCES "public"."distribution_queues"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "distribution_queue_members" ADD CONSTRAINT "distribution_queue_members_membership_fk" FOREIGN KEY ("organization_id","membership_id") REFERENCES "public"."memberships"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "distribution_queues" ADD CONSTRAINT "distribution_queues_board_fk" FOREIGN KEY ("organization_id","board_id") REFERENCES "public"."boards"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "distribution_queues" ADD CONSTRAINT "distribution_queues_inbox_fk" FOREIGN KEY ("organization_id","inbox_id") REFERENCES "public"."chat_inboxes"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_inboxes" ADD CONSTRAINT "chat_inboxes_channel_fk" FOREIGN KEY ("organization_id","channel_id") REFERENCES "public"."chat_channels"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_messages" ADD CONSTRAINT "chat_messages_conversation_fk" FOREIGN KEY ("organization_id","conversation_id") REFERENCES "public"."conversations"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_inbox_fk" FOREIGN KEY ("organization_id","inbox_id") REFERENCES "public"."chat_inboxes"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_deliveries" ADD CONSTRAINT "lead_deliveries_route_fk" FOREIGN KEY ("organization_id","route_id") REFERENCES "public"."lead_form_routes"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_form_routes" ADD CONSTRAINT "lead_form_routes_integration_fk" FOREIGN KEY ("organization_id","integration_id") REFERENCES "public"."lead_integrations"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_form_routes" ADD CONSTRAINT "lead_form_routes_board_fk" FOREIGN KEY ("organization_id","board_id") REFERENCES "public"."boards"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_integration_pages" ADD CONSTRAINT "lead_integration_pages_integration_fk" FOREIGN KEY ("organization_id","integration_id") REFERENCES "public"."lead_integrations"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_membership_fk" FOREIGN KEY ("organization_id","membership_id") REFERENCES "public"."memberships"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "card_products" ADD CONSTRAINT "card_products_card_fk" FOREIGN KEY ("organization_id","card_id") REFERENCES "public"."cards"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_category_fk" FOREIGN KEY ("organization_id","category_id") REFERENCES "public"."product_categories"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quote_items" ADD CONSTRAINT "quote_items_quote_fk" FOREIGN KEY ("organization_id","quote_id") REFERENCES "public"."quotes"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "saved_filters" ADD CONSTRAINT "saved_filters_board_fk" FOREIGN KEY ("organization_id","board_id") REFERENCES "public"."boards"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "segment_links" ADD CONSTRAINT "segment_links_segment_fk" FOREIGN KEY ("organization_id","segment_id") REFERENCES "public"."segments"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "segment_links" ADD CONSTRAINT "segment_links_linked_fk" FOREIGN KEY ("organization_id","linked_segment_id") REFERENCES "public"."segments"("organization_id","id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_assignees" ADD CONSTRAINT "task_assignees_task_fk" FOREIGN KEY ("organization_id","task_id") REFERENCES "public"."tasks"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_assignees" ADD CONSTRAINT "task_assignees_membership_fk" FOREIGN KEY ("organization_id","membership_id") REFERENCES "public"."memberships"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_card_fk" FOREIGN KEY ("organization_id","card_id") REFERENCES "public"."cards"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_members" ADD CONSTRAINT "team_members_organization_id_team_id_teams_organization_id_id_fk" FOREIGN KEY ("organization_id","team_id") REFERENCES "public"."teams"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_members" ADD CONSTRAINT "team_members_organization_id_membership_id_memberships_organization_id_id_fk" FOREIGN KEY ("organization_id","membership_id") REFERENCES "public"."memberships"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "whatsapp_templates" ADD CONSTRAINT "whatsapp_templates_channel_fk" FOREIGN KEY ("organization_id","channel_id") REFERENCES "public"."chat_channels"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_subscription_fk" FOREIGN KEY ("organization_id","subscription_id") REFERENCES "public"."webhook_subscriptions"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "calendar_connections_org_document_id_key" ON "calendar_connections" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "calendar_connections_org_membership_key" ON "calendar_connections" USING btree ("organization_id","membership_id");--> statement-breakpoint
CREATE UNIQUE INDEX "calendar_meetings_org_document_id_key" ON "calendar_meetings" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "calendar_meetings_org_uid_key" ON "calendar_meetings" USING btree ("organization_id","uid");--> statement-breakpoint
CREATE INDEX "calendar_meetings_org_card_idx" ON "calendar_meetings" USING btree ("organization_id","card_id","starts_at");--> statement-breakpoint
CREATE UNIQUE INDEX "agent_confirmations_org_document_id_key" ON "agent_confirmations" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "automation_runs_org_automation_event_key" ON "automation_runs" USING btree ("organization_id","automation_id","event_id");--> statement-breakpoint
CREATE INDEX "automation_runs_org_automation_idx" ON "automation_runs" USING btree ("organization_id","automation_id","id");--> statement-breakpoint
CREATE INDEX "automation_runs_pending_idx" ON "automation_runs" USING btree ("organization_id","subject","id") WHERE status = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "automations_org_document_id_key" ON "automations" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE INDEX "automations_org_trigger_idx" ON "automations" USING btree ("organization_id","trigger_event");--> statement-breakpoint
CREATE INDEX "board_members_org_membership_idx" ON "board_members" USING btree ("organization_id","membership_id");--> statement-breakpoint
CREATE UNIQUE INDEX "boards_org_document_id_key" ON "boards" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "boards_org_slug_key" ON "boards" USING btree ("organization_id","slug");--> statement-breakpoint
CREATE INDEX "boards_document_id_idx" ON "boards" USING btree ("document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "field_conditions_org_document_id_key" ON "field_conditions" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE INDEX "field_conditions_org_board_idx" ON "field_conditions" USING btree ("organization_id","board_id","order");--> statement-breakpoint
CREATE UNIQUE INDEX "field_definitions_org_document_id_key" ON "field_definitions" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "field_definitions_org_board_slug_key" ON "field_definitions" USING btree ("organization_id","board_id","slug");--> statement-breakpoint
CREATE INDEX "field_definitions_org_phase_idx" ON "field_definitions" USING btree ("organization_id","phase_id","order");--> statement-breakpoint
CREATE UNIQUE INDEX "phases_org_document_id_key" ON "phases" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "phases_org_board_slug_key" ON "phases" USING btree ("organization_id","board_id","slug");--> statement-breakpoint
CREATE INDEX "phases_org_board_order_idx" ON "phases" USING btree ("organization_id","board_id","order");--> statement-breakpoint
CREATE UNIQUE INDEX "tags_org_document_id_key" ON "tags" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "tags_org_board_slug_key" ON "tags" USING btree ("organization_id","board_id","slug");--> statement-breakpoint
CREATE UNIQUE INDEX "campaign_recipients_org_campaign_contact_key" ON "campaign_recipients" USING btree ("organization_id","campaign_id","contact_id");--> statement-breakpoint
CREATE UNIQUE INDEX "campaign_recipients_org_campaign_address_key" ON "campaign_recipients" USING btree ("organization_id","campaign_id","address");--> statement-breakpoint
CREATE INDEX "campaign_recipients_org_campaign_status_idx" ON "campaign_recipients" USING btree ("organization_id","campaign_id","status","id");--> statement-breakpoint
CREATE INDEX "campaign_recipients_org_message_idx" ON "campaign_recipients" USING btree ("organization_id","provider_message_id") WHERE provider_message_id is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "campaigns_org_document_id_key" ON "campaigns" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE INDEX "campaigns_org_status_idx" ON "campaigns" USING btree ("organization_id","status");--> statement-breakpoint
CREATE INDEX "campaigns_org_channel_idx" ON "campaigns" USING btree ("organization_id","channel_id");--> statement-breakpoint
CREATE INDEX "campaigns_status_heartbeat_idx" ON "campaigns" USING btree ("status","heartbeat_at");--> statement-breakpoint
CREATE UNIQUE INDEX "suppressions_org_document_id_key" ON "suppressions" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "suppressions_org_address_key" ON "suppressions" USING btree ("organization_id","address");--> statement-breakpoint
CREATE INDEX "card_assignees_org_membership_idx" ON "card_assignees" USING btree ("organization_id","membership_id","card_id");--> statement-breakpoint
CREATE INDEX "card_count_deltas_org_board_idx" ON "card_count_deltas" USING btree ("organization_id","board_id","phase_id");--> statement-breakpoint
CREATE UNIQUE INDEX "card_files_org_document_id_key" ON "card_files" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE INDEX "card_files_org_card_created_idx" ON "card_files" USING btree ("organization_id","card_id","created_at");--> statement-breakpoint
CREATE INDEX "card_report_deltas_org_board_idx" ON "card_report_deltas" USING btree ("organization_id","board_id","day");--> statement-breakpoint
CREATE INDEX "card_report_tombstones_org_card_idx" ON "card_report_tombstones" USING btree ("organization_id","card_id");--> statement-breakpoint
CREATE INDEX "card_tags_org_tag_idx" ON "card_tags" USING btree ("organization_id","tag_id","card_id");--> statement-breakpoint
CREATE INDEX "card_title_search_trgm_idx" ON "card_title_search" USING gin ("organization_id","board_id","title" gin_trgm_ops);--> statement-breakpoint
CREATE UNIQUE INDEX "cards_org_document_id_key" ON "cards" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE INDEX "cards_org_board_created_idx" ON "cards" USING btree ("organization_id","board_id","created_at" DESC NULLS LAST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "cards_org_board_phase_created_idx" ON "cards" USING btree ("organization_id","board_id","current_phase_id","created_at" DESC NULLS LAST,"id" DESC NULLS FIRST,"due_date","value","current_phase_entered_at");--> statement-breakpoint
CREATE INDEX "cards_text_trgm_idx" ON "cards" USING gin ("organization_id","board_id","title" gin_trgm_ops,"description" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "cards_org_board_due_idx" ON "cards" USING btree ("organization_id","board_id","due_date");--> statement-breakpoint
CREATE INDEX "cards_org_board_phase_entered_idx" ON "cards" USING btree ("organization_id","board_id","current_phase_id","current_phase_entered_at");--> statement-breakpoint
CREATE INDEX "cards_org_contact_idx" ON "cards" USING btree ("organization_id","contact_id");--> statement-breakpoint
CREATE INDEX "cards_fields_gin_idx" ON "cards" USING gin ("organization_id","board_id","fields" jsonb_path_ops);--> statement-breakpoint
CREATE UNIQUE INDEX "comments_org_document_id_key" ON "comments" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE INDEX "comments_org_card_idx" ON "comments" USING btree ("organization_id","card_id","created_at");--> statement-breakpoint
CREATE INDEX "board_chat_channels_org_channel_idx" ON "board_chat_channels" USING btree ("organization_id","channel_id");--> statement-breakpoint
CREATE UNIQUE INDEX "chat_channels_org_document_id_key" ON "chat_channels" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "chat_channels_org_name_key" ON "chat_channels" USING btree ("organization_id","name");--> statement-breakpoint
CREATE INDEX "chat_channels_org_type_idx" ON "chat_channels" USING btree ("organization_id","type");--> statement-breakpoint
CREATE UNIQUE INDEX "contact_activities_org_document_id_key" ON "contact_activities" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE INDEX "contact_activities_org_contact_idx" ON "contact_activities" USING btree ("organization_id","contact_id","performed_at","id");--> statement-breakpoint
CREATE INDEX "contact_name_search_trgm_idx" ON "contact_name_search" USING gin ("organization_id","name" gin_trgm_ops);--> statement-breakpoint
CREATE UNIQUE INDEX "contacts_org_document_id_key" ON "contacts" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "contacts_org_cpf_key" ON "contacts" USING btree ("organization_id","cpf") WHERE cpf is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "contacts_org_cnpj_key" ON "contacts" USING btree ("organization_id","cnpj") WHERE cnpj is not null;--> statement-breakpoint
CREATE INDEX "contacts_org_email_idx" ON "contacts" USING btree ("organization_id","email");--> statement-breakpoint
CREATE INDEX "contacts_org_email_lower_idx" ON "contacts" USING btree ("organization_id",lower("email"));--> statement-breakpoint
CREATE INDEX "contacts_org_owner_idx" ON "contacts" USING btree ("organization_id","owner_id");--> statement-breakpoint
CREATE INDEX "contacts_org_team_idx" ON "contacts" USING btree ("organization_id","team_id");--> statement-breakpoint
CREATE INDEX "contacts_org_created_idx" ON "contacts" USING btree ("organization_id","created_at" DESC NULLS LAST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "contacts_org_name_idx" ON "contacts" USING btree ("organization_id","name" NULLS FIRST,"id");--> statement-breakpoint
CREATE INDEX "contacts_text_trgm_idx" ON "contacts" USING gin ("organization_id","name" gin_trgm_ops,"email" gin_trgm_ops,"phone" gin_trgm_ops,"city" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "contacts_search_idx" ON "contacts" USING gin ("organization_id","search_text" gin_trgm_ops);--> statement-breakpoint
CREATE UNIQUE INDEX "conversion_events_org_pixel_dedup_key" ON "conversion_events" USING btree ("organization_id","pixel_id","dedup_id");--> statement-breakpoint
CREATE INDEX "conversion_events_pending_idx" ON "conversion_events" USING btree ("organization_id","id") WHERE status = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "conversion_pixels_org_document_id_key" ON "conversion_pixels" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE INDEX "conversion_pixels_org_board_idx" ON "conversion_pixels" USING btree ("organization_id","board_id");--> statement-breakpoint
CREATE UNIQUE INDEX "distribution_queues_org_document_id_key" ON "distribution_queues" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "distribution_queues_org_board_key" ON "distribution_queues" USING btree ("organization_id","board_id");--> statement-breakpoint
CREATE UNIQUE INDEX "distribution_queues_org_inbox_key" ON "distribution_queues" USING btree ("organization_id","inbox_id");--> statement-breakpoint
CREATE UNIQUE INDEX "email_assets_org_document_id_key" ON "email_assets" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE INDEX "email_assets_document_id_idx" ON "email_assets" USING btree ("document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "email_templates_org_document_id_key" ON "email_templates" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "email_templates_org_name_key" ON "email_templates" USING btree ("organization_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "chat_inboxes_org_channel_key" ON "chat_inboxes" USING btree ("organization_id","channel_id");--> statement-breakpoint
CREATE UNIQUE INDEX "chat_messages_org_provider_id_key" ON "chat_messages" USING btree ("organization_id","provider_message_id") WHERE provider_message_id is not null;--> statement-breakpoint
CREATE INDEX "chat_messages_org_conversation_idx" ON "chat_messages" USING btree ("organization_id","conversation_id","id" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "conversations_org_inbox_wa_key" ON "conversations" USING btree ("organization_id","inbox_id","wa_id");--> statement-breakpoint
CREATE INDEX "conversations_org_last_message_idx" ON "conversations" USING btree ("organization_id","last_message_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "conversations_org_contact_idx" ON "conversations" USING btree ("organization_id","contact_id");--> statement-breakpoint
CREATE INDEX "conversations_org_assignee_idx" ON "conversations" USING btree ("organization_id","assignee_membership_id");--> statement-breakpoint
CREATE INDEX "conversations_org_card_idx" ON "conversations" USING btree ("organization_id","card_id");--> statement-breakpoint
CREATE INDEX "conversations_org_unread_idx" ON "conversations" USING btree ("organization_id","inbox_id") WHERE unread_count > 0;--> statement-breakpoint
CREATE UNIQUE INDEX "invitations_org_document_id_key" ON "invitations" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "invitations_org_pending_email_key" ON "invitations" USING btree ("organization_id","email") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "invitations_token_hash_idx" ON "invitations" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "lead_deliveries_org_document_id_key" ON "lead_deliveries" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "lead_deliveries_org_leadgen_key" ON "lead_deliveries" USING btree ("organization_id","leadgen_id");--> statement-breakpoint
CREATE INDEX "lead_deliveries_org_route_idx" ON "lead_deliveries" USING btree ("organization_id","route_id","id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "lead_deliveries_org_status_idx" ON "lead_deliveries" USING btree ("organization_id","status") WHERE status in ('pending', 'retrying', 'failed');--> statement-breakpoint
CREATE UNIQUE INDEX "lead_form_routes_org_document_id_key" ON "lead_form_routes" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "lead_form_routes_org_form_key" ON "lead_form_routes" USING btree ("organization_id","form_id");--> statement-breakpoint
CREATE INDEX "lead_form_routes_org_integration_idx" ON "lead_form_routes" USING btree ("organization_id","integration_id");--> statement-breakpoint
CREATE INDEX "lead_form_routes_page_form_idx" ON "lead_form_routes" USING btree ("page_id","form_id");--> statement-breakpoint
CREATE UNIQUE INDEX "lead_integrations_org_document_id_key" ON "lead_integrations" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "lead_integrations_org_provider_user_key" ON "lead_integrations" USING btree ("organization_id","provider_user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "notifications_org_document_id_key" ON "notifications" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "notifications_org_member_dedupe_key" ON "notifications" USING btree ("organization_id","membership_id","dedupe_key");--> statement-breakpoint
CREATE INDEX "notifications_org_member_created_idx" ON "notifications" USING btree ("organization_id","membership_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "memberships_org_document_id_key" ON "memberships" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "memberships_org_user_key" ON "memberships" USING btree ("organization_id","user_id");--> statement-breakpoint
CREATE INDEX "memberships_user_id_idx" ON "memberships" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "organizations_slug_key" ON "organizations" USING btree ("slug");--> statement-breakpoint
CREATE UNIQUE INDEX "organizations_document_id_key" ON "organizations" USING btree ("document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "pdf_templates_org_document_id_key" ON "pdf_templates" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "pdf_templates_org_name_key" ON "pdf_templates" USING btree ("organization_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "pdf_templates_org_kind_is_default_key" ON "pdf_templates" USING btree ("organization_id","kind") WHERE is_default;--> statement-breakpoint
CREATE UNIQUE INDEX "product_categories_org_document_id_key" ON "product_categories" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "product_categories_org_name_key" ON "product_categories" USING btree ("organization_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "card_products_org_document_id_key" ON "card_products" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE INDEX "card_products_org_card_idx" ON "card_products" USING btree ("organization_id","card_id");--> statement-breakpoint
CREATE INDEX "card_products_org_product_idx" ON "card_products" USING btree ("organization_id","product_id");--> statement-breakpoint
CREATE UNIQUE INDEX "products_org_document_id_key" ON "products" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "products_org_sku_key" ON "products" USING btree ("organization_id",lower("sku"));--> statement-breakpoint
CREATE INDEX "products_org_category_idx" ON "products" USING btree ("organization_id","category_id");--> statement-breakpoint
CREATE INDEX "products_org_name_idx" ON "products" USING btree ("organization_id","name" NULLS FIRST,"id");--> statement-breakpoint
CREATE UNIQUE INDEX "quote_items_org_document_id_key" ON "quote_items" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE INDEX "quote_items_org_quote_idx" ON "quote_items" USING btree ("organization_id","quote_id","position");--> statement-breakpoint
CREATE INDEX "quote_items_org_product_idx" ON "quote_items" USING btree ("organization_id","product_id");--> statement-breakpoint
CREATE UNIQUE INDEX "quotes_org_document_id_key" ON "quotes" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "quotes_org_number_key" ON "quotes" USING btree ("organization_id","number");--> statement-breakpoint
CREATE INDEX "quotes_org_card_idx" ON "quotes" USING btree ("organization_id","card_id");--> statement-breakpoint
CREATE INDEX "quotes_org_contact_idx" ON "quotes" USING btree ("organization_id","contact_id");--> statement-breakpoint
CREATE INDEX "quotes_org_created_idx" ON "quotes" USING btree ("organization_id","created_at" DESC NULLS LAST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "quotes_org_number_idx" ON "quotes" USING btree ("organization_id","number" DESC NULLS LAST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE UNIQUE INDEX "saved_filters_org_document_id_key" ON "saved_filters" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE INDEX "saved_filters_org_resource_idx" ON "saved_filters" USING btree ("organization_id","resource","name");--> statement-breakpoint
CREATE INDEX "segment_links_org_linked_idx" ON "segment_links" USING btree ("organization_id","linked_segment_id");--> statement-breakpoint
CREATE UNIQUE INDEX "segments_org_document_id_key" ON "segments" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "segments_org_name_key" ON "segments" USING btree ("organization_id","name");--> statement-breakpoint
CREATE INDEX "task_assignees_org_membership_idx" ON "task_assignees" USING btree ("organization_id","membership_id","task_id");--> statement-breakpoint
CREATE UNIQUE INDEX "tasks_org_document_id_key" ON "tasks" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "tasks_org_recurrence_occurrence_key" ON "tasks" USING btree ("organization_id","recurrence_parent_id","occurrence_number");--> statement-breakpoint
CREATE INDEX "tasks_org_due_idx" ON "tasks" USING btree ("organization_id","due_date");--> statement-breakpoint
CREATE INDEX "tasks_org_card_idx" ON "tasks" USING btree ("organization_id","card_id");--> statement-breakpoint
CREATE INDEX "tasks_org_created_idx" ON "tasks" USING btree ("organization_id","created_at" DESC NULLS LAST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE UNIQUE INDEX "team_members_org_document_id_key" ON "team_members" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "team_members_org_team_membership_key" ON "team_members" USING btree ("organization_id","team_id","membership_id");--> statement-breakpoint
CREATE INDEX "team_members_org_membership_idx" ON "team_members" USING btree ("organization_id","membership_id");--> statement-breakpoint
CREATE UNIQUE INDEX "teams_org_document_id_key" ON "teams" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "teams_org_name_key" ON "teams" USING btree ("organization_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "whatsapp_templates_org_document_id_key" ON "whatsapp_templates" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "whatsapp_templates_org_channel_name_language_key" ON "whatsapp_templates" USING btree ("organization_id","channel_id","name","language");--> statement-breakpoint
CREATE INDEX "whatsapp_templates_org_channel_idx" ON "whatsapp_templates" USING btree ("organization_id","channel_id");--> statement-breakpoint
CREATE UNIQUE INDEX "api_tokens_token_hash_key" ON "api_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "api_tokens_document_id_key" ON "api_tokens" USING btree ("document_id");--> statement-breakpoint
CREATE INDEX "api_tokens_user_id_idx" ON "api_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_document_id_key" ON "users" USING btree ("document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_key" ON "users" USING btree ("email");--> statement-breakpoint
CREATE UNIQUE INDEX "users_username_key" ON "users" USING btree ("username");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_org_subscription_event_key" ON "webhook_deliveries" USING btree ("organization_id","subscription_id","event_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_org_pending_idx" ON "webhook_deliveries" USING btree ("organization_id","subscription_id","id") WHERE status = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_subscriptions_org_document_id_key" ON "webhook_subscriptions" USING btree ("organization_id","document_id");--> statement-breakpoint
CREATE INDEX "audit_log_org_created_idx" ON "audit_log" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "domain_events_org_pending_idx" ON "domain_events" USING btree ("organization_id","id") WHERE not dispatched;--> statement-breakpoint
CREATE INDEX "idempotency_keys_lease_idx" ON "idempotency_keys" USING btree ("lease_token") WHERE status_code is null;--> statement-breakpoint
CREATE INDEX "idempotency_keys_created_idx" ON "idempotency_keys" USING btree ("created_at");