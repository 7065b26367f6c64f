/**
 * A project with environments holding a platform dashboard and a notebook: values and `env.name` in names, content,
 * queries, a `dashboard("…")` link from the dashboard to the notebook, overrides by tile key and section id, a tile and
 * a section limited to dev. Shared by the unit and integration tests of documents in environments.
 */

export const CONFIG = `values:
  service: checkout
environments:
  dev:
  prod:
    values:
      service: checkout-prod
groups:
  production: [prod]
`;

export const BOARD = `document:
  kind: dashboard
  name: Checkout \${{ env.name }}
version: 21
tiles:
  intro:
    type: markdown
    content: "[Triage](/ui/apps/dynatrace.notebooks/notebook/\${{ dashboard(\\"triage.yaml\\") }})"
  errors:
    type: data
    query: fetch logs | filter service == "\${{ values.service }}"
  debug:
    type: markdown
    content: debug
layouts:
  intro: { x: 0, y: 0, w: 24, h: 2 }
  errors: { x: 0, y: 2, w: 12, h: 4 }
  debug: { x: 12, y: 2, w: 12, h: 4 }
dashcd:
  tiles:
    debug: { environments: [dev] }
  overrides:
    production:
      tiles:
        errors:
          title: Errors (production)
`;

export const TRIAGE = `document:
  kind: notebook
  name: Triage
  id: triage-notes
version: "7"
sections:
  - id: intro
    type: markdown
    markdown: Triage of \${{ values.service }}
  - id: debug
    type: markdown
    markdown: debug only
  - id: logs
    type: dql
    state: { input: { value: fetch logs } }
dashcd:
  sections:
    debug: { environments: [dev] }
  overrides:
    prod:
      document: { id: triage-prod }
      sections:
        - id: budget
          type: markdown
          markdown: prod only
        - id: logs
          title: Production logs
`;
