import { Migration } from '@mikro-orm/migrations';

/**
 * Site permissions and the state of custom hostnames:
 * - `site_permission`: a role granted on one site to one member or one team of the site's
 *   organization (GitBook's site permissions). The effective role on a site is the highest of the
 *   member's organization role and these grants (src/api/sites/site-access.ts). A grant goes with
 *   its site, user or team; a member who leaves the organization loses their grants there (trigger
 *   on `member`), as they lose their content grants. Writes are announced on the change feed
 *   (Migration0028), like every table an authorization decision is made of.
 * - `custom_hostname_check`: the last DNS check of a site's custom hostname (its `hostname`
 *   setting): the hostname checked, the status found and when. A check of another hostname than the
 *   site's current one is stale and is made again.
 */
export class Migration0035SitePermissions extends Migration {
  override name = 'Migration0035SitePermissions';

  override up(): void {
    this.addSql(`
      create table site_permission (
        id text primary key,
        organization_id text not null references organization (id) on delete cascade,
        site_id text not null references site (id) on delete cascade,
        user_id text references app_user (id) on delete cascade,
        team_id text references team (id) on delete cascade,
        role text not null check (role in ('admin', 'create', 'review', 'edit', 'comment', 'read')),
        created_at timestamptz not null default now(),
        check ((user_id is null) <> (team_id is null))
      );
      create unique index site_permission_user_key on site_permission (site_id, user_id) where user_id is not null;
      create unique index site_permission_team_key on site_permission (site_id, team_id) where team_id is not null;
      create index site_permission_site_idx on site_permission (site_id, created_at, id);
      create index site_permission_user_idx on site_permission (user_id);
      create index site_permission_team_idx on site_permission (team_id);

      create function site_permission_drop_departed() returns trigger language plpgsql as $$
      begin
        delete from site_permission p using departed d
          where p.organization_id = d.organization_id and p.user_id = d.user_id;
        return null;
      end
      $$;
      create trigger member_site_permission_departed after delete on member
        referencing old table as departed
        for each statement execute function site_permission_drop_departed();

      create trigger site_permission_announce after insert or update or delete or truncate on site_permission
        for each statement execute function announce_data_change();

      create table custom_hostname_check (
        site_id text primary key references site (id) on delete cascade,
        hostname text not null,
        status text not null,
        active boolean not null,
        checked_at timestamptz not null
      );
    `);
  }
}
