// Sample agent notes for the demo page's "Load sample notes" button: what an
// agent might have written down over a few weeks of work on one team's
// infrastructure and code. Together they are well over MEMORY.md's 2,200-char
// verbatim budget, so loading them switches the store to "searched".
//
// A note's first line is its title; `[[Title]]` links to the note with that
// title; the first `#tag` files a note into a sector (untagged notes inherit
// one through their links); `#pinned` keeps a note in the prompt's digest.
// "Incident runbook" is linked to but deliberately missing (a dangling link).

export const SAMPLE_NOTES = [
  "Production cluster #infra\nThree k3s nodes (prod-1, prod-2, prod-3) in Hetzner fsn1; ingress is Traefik. Releases go out through [[Deploy procedure]]; dashboards in [[Monitoring]].",
  "Staging server #infra\nstaging.internal (10.0.4.12), Ubuntu 22.04, auto-deploys the develop branch. SSH only through the [[Bastion host]].",
  "Bastion host #infra\nbastion.example.net, SSH on 2222, key-only auth; accounts are managed by the Ansible roles in infra/ansible.",
  "Ground rules #pinned\nNever run migrations on prod without a fresh backup ([[Backups]]). Ask before force-pushing to main or deleting data.",
  "Deploy procedure #ops\nTag vX.Y.Z on main, CI builds the image, then `make deploy ENV=prod`. Rollback: `make rollback ENV=prod`. No deploys on Friday after 15:00.",
  "Monitoring #infra\nPrometheus, Alertmanager and Grafana on mon.internal; alerts go to the ops-alerts Slack channel. Logs: [[Logging]].",
  "Сервер мониторинга слушает портами 9090 и 9093 #infra\nЭто Prometheus и Alertmanager на mon.internal; Grafana открыта на 3000. Подробнее: [[Monitoring]].",
  "Backups #ops\nrestic snapshots of Postgres and /srv every night at 02:30 UTC to Backblaze B2; 30 daily and 12 monthly snapshots are kept.",
  "Резервные копии проверяем по понедельникам: восстановление базы на стенде занимает около сорока минут ([[Backups]]).",
  "Postgres database #infra\nPostgres 16 on db-1 (primary) and db-2 (streaming replica); PgBouncer in front on 6432. Nightly dumps: [[Backups]].",
  "Redis #infra\nRedis 7 on cache-1 holds sessions and the BullMQ job queue; no persistence, so flush it on staging only.",
  "DNS and certificates #infra\nDNS at Cloudflare; cert-manager issues Let's Encrypt certificates and renews them 30 days before expiry.",
  "Secrets #infra\nAll secrets live in HashiCorp Vault (vault.internal); apps read them through the Vault agent sidecar. Never commit .env files.",
  "Logging #infra\nLoki with Promtail, 14 days of retention; query with LogQL from Grafana.",
  "Load balancer #infra\nHetzner LB in front of the [[Production cluster]], health check on /healthz every 10 s.",
  "Email delivery #infra\nTransactional mail goes through Postmark; bounces are forwarded to the support inbox.",
  "CI pipeline #dev\nGitHub Actions: lint, unit tests, Docker image pushed to ghcr.io/acme/api. main is protected: green CI plus one review.",
  "Code style #dev\nRust: rustfmt defaults and clippy -D warnings. TypeScript: Prettier, 2 spaces, no semicolons. Commit messages in the imperative mood.",
  "Branching #dev\nTrunk-based: short-lived branches off main, squash-merged. A release tag triggers the [[Deploy procedure]].",
  "Testing conventions #dev\nIntegration tests use a real Postgres in Docker (testcontainers), never a mocked database. Run the ignored tests before a release.",
  "Local setup #dev\n`just dev` starts Postgres, Redis and the API with hot reload; `just seed` loads demo data. Needs Docker and Rust 1.82+.",
  "Database migrations #dev\nsqlx migrate; every migration must be reversible. [[Alice Chen]] reviews any change to billing tables. See [[Ground rules]].",
  "Feature flags #dev\nUnleash at flags.internal; remove a flag within two sprints of its full rollout.",
  "Docs site #dev\nmdBook in docs/, published to docs.acme.dev by CI on every merge to main.",
  "Dependency updates #dev\nRenovate opens PRs on Mondays; patch updates auto-merge when CI is green, major versions need a human.",
  "Known flaky test #dev\n`test_webhook_retry` fails about once in 50 CI runs (timing); re-run it before investigating.",
  "API service #project\nRust + Axum + SQLx in ~/code/api; REST on :8080, gRPC on :50051. Runs on the [[Production cluster]], data in [[Postgres database]].",
  "Billing service #project\nPython 3.12 + FastAPI, talks to Stripe; owned by [[Alice Chen]]. Webhook signatures are checked with the secret from [[Secrets]].",
  "Frontend #project\nNext.js app in ~/code/web, hosted on Vercel; design tokens come from the Figma library of [[Marta Kowalska]].",
  "Search service #project\nMeilisearch on search-1 reindexes products nightly; `just reindex` rebuilds it by hand in about 15 minutes.",
  "Customer: Northwind #project\nLargest customer, on a dedicated tenant; 99.95% SLA and 48 hours of notice before any maintenance window.",
  "Rate limits\nPublic API: 100 requests a minute per token, 1,000 for [[Customer: Northwind]]; enforced by a Traefik middleware.",
  "Sprint rhythm #project\nTwo-week sprints start on Wednesday: planning at 11:00, retro every other Tuesday.",
  "Alice Chen #people\nTech lead of billing, based in Berlin (CET). Prefers async review comments to calls; approves schema changes.",
  "Marta Kowalska #people\nDesigner in Warsaw who owns the design system; ask her before adding new colours or icons.",
  "Ivan Petrov #people\nSRE, on call on even weeks; wrote most of the Ansible roles. Reachable on Telegram when Slack is down.",
  "On-call rotation #ops\nWeekly, handover on Monday at 10:00 CET in PagerDuty. Escalate infra to [[Ivan Petrov]], billing to [[Alice Chen]].",
  "Incident process #ops\nOpen an incident channel, name a commander, post updates every 30 minutes, postmortem within 5 working days. Steps: [[Incident runbook]].",
  "Cloud costs #ops\nHetzner bill is about €410 a month, mostly the three prod nodes; Backblaze B2 adds about €12.",
  "Team hours\nThe team spans Berlin, Warsaw and Yerevan: book meetings between 10:00 and 16:00 CET.",
];

/** The sample notes as MEMORY.md text (entries separated by `§` lines). */
export const SAMPLE_MEMORY_MD = SAMPLE_NOTES.join("\n§\n");
