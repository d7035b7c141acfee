import { Migration } from '@mikro-orm/migrations';

/**
 * Site insights (src/db/insights.ts, docs/scaling.md "Site insights"):
 * - `site_insights_event` holds every event a published site's renderer tracks, one row each,
 *   partitioned by month on `occurred_at` (range partitions in the `insights_partitions` schema,
 *   named `site_insights_event_YYYY_MM`). The code creates each month's partition ahead of need and
 *   drops those past INSIGHTS_RETENTION; this migration creates the current month's and the next.
 *   No visitor IP address is stored: the country comes from the renderer's headers.
 * - `site_insights_hourly` and `site_insights_daily` count events per site, hour (day) and event
 *   type, twice: by URL path (`search_query` '') and by search query (`url_path` ''), upserted in
 *   the transaction that inserts the events: the aggregations that only need those read the
 *   rollups for whole hours and days of their range.
 * - `site_agent_feedback` keeps what AI agents report about a site.
 */
export class Migration0034SiteInsights extends Migration {
  override name = 'Migration0034SiteInsights';

  override up(): void {
    this.addSql(`
      create schema if not exists insights_partitions;
      create table site_insights_event (
        id uuid not null,
        organization_id text not null,
        site_id text not null,
        occurred_at timestamptz not null,
        event_type text not null,
        visitor_id text not null,
        session_id text not null,
        url text not null,
        url_path text not null,
        display_context text not null,
        site_section text,
        site_space text,
        site_share_key text,
        space text,
        revision text,
        page text,
        page_not_found_type text,
        country text,
        latitude real,
        longitude real,
        language text,
        browser text not null,
        device text not null,
        os text not null,
        bot text,
        referrer text,
        referrer_domain text,
        utm_source text,
        utm_medium text,
        utm_campaign text,
        utm_term text,
        utm_content text,
        visitor_authenticated boolean not null,
        claims jsonb,
        search_query text,
        search_result_record_id text,
        feedback_rating text,
        feedback_comment text,
        ask_rating integer,
        link_target_kind text,
        link_target_value jsonb,
        link_target_domain text,
        link_position text,
        api_path text,
        api_method text,
        llms_variant text,
        markdown_source text,
        ad_domain text,
        ad_placement text,
        trademark_placement text,
        detail jsonb,
        primary key (occurred_at, id)
      ) partition by range (occurred_at);
      create index site_insights_event_site_idx on site_insights_event (site_id, occurred_at);

      create table site_insights_hourly (
        site_id text not null,
        hour timestamptz not null,
        event_type text not null,
        url_path text not null,
        search_query text not null,
        events bigint not null,
        primary key (site_id, hour, event_type, url_path, search_query)
      );
      create table site_insights_daily (
        site_id text not null,
        day timestamptz not null,
        event_type text not null,
        url_path text not null,
        search_query text not null,
        events bigint not null,
        primary key (site_id, day, event_type, url_path, search_query)
      );

      create table site_agent_feedback (
        id text primary key,
        organization_id text not null,
        site_id text not null references site (id) on delete cascade,
        created_at timestamptz not null default now(),
        source text,
        subject jsonb not null,
        feedback jsonb not null,
        reported_by jsonb
      );
      create index site_agent_feedback_site_idx on site_agent_feedback (site_id, created_at);

      do $$
      declare
        month date := date_trunc('month', now() at time zone 'UTC')::date;
      begin
        for i in 0..1 loop
          execute format(
            'create table if not exists insights_partitions.%I partition of site_insights_event for values from (%L) to (%L)',
            'site_insights_event_' || to_char(month + make_interval(months => i), 'YYYY_MM'),
            (month + make_interval(months => i))::timestamp at time zone 'UTC',
            (month + make_interval(months => i + 1))::timestamp at time zone 'UTC');
        end loop;
      end
      $$;
    `);
  }
}
