import { deriveDashboardId } from '../desired/derive-id.js';
import { DASHBOARD_FILE } from '../desired/discover-files.js';
import { normalizeForCompare } from '../dashboards/normalize.js';
import { isOwned } from '../dashboards/ownership.js';
import { sameDashboardContent } from '../plan/build-plan.js';
import { readPreviewDashboard } from '../preview/preview-model.js';
import { Dashboard, type LiveDashboard } from '../schema/dashboard.js';
import type { DashboardId } from '../schema/ids.js';
import { DASHBOARD_FILE_SCHEMA_ID, dashboardFileJsonSchema } from '../schema/json-schema.js';
import { writtenDashboard, writtenFromText } from './classic-written.js';
import { defineKind, type Kind } from './kind.js';

/**
 * Classic dashboards (the configuration API's `/api/config/v1/dashboards`), the first kind: each part is the module
 * that has always done it, named here so the pipeline can ask the kind instead of knowing it. Their ownership mark
 * is a tag in `dashboardMetadata.tags`; what the service fills in on read is dashboards/service-defaults.ts.
 */
export const classicDashboards: Kind<Dashboard, LiveDashboard, DashboardId> = defineKind<Dashboard, LiveDashboard, DashboardId>({
  info: { name: 'dashboard', plural: 'dashboards', extensions: ['.yaml', '.yml', '.json'], schemaId: DASHBOARD_FILE_SCHEMA_ID },
  isFile: (path) => DASHBOARD_FILE.test(path),
  schema: Dashboard,
  jsonSchema: dashboardFileJsonSchema,
  deriveId: deriveDashboardId,
  isOwned: (live, mark) => isOwned(live as LiveDashboard, mark),
  // The PUT body (classic-written.ts): from the file's body text when the loader holds it, else from its object.
  written: (desired, mark) =>
    (desired.bodyJson === undefined ? undefined : writtenFromText(desired.id, desired.bodyJson, mark)) ?? { desired: writtenDashboard(desired.id, desired.body as Dashboard, mark) },
  sameContent: sameDashboardContent,
  comparedForm: (value, ignore) => normalizeForCompare(value, { ignore }),
  live: (api) => ({
    async listOwned(mark) {
      const stubs = await api.dashboards.list({ tags: [mark] });
      return stubs.map((stub) => ({ id: stub.id, name: stub.name ?? '', ...(stub.owner ? { owner: stub.owner } : {}) }));
    },
    getText: (id, options) => api.dashboards.getText(id, options),
    put: (id, body) => api.dashboards.put(id, body),
    remove: (id) => api.dashboards.remove(id),
  }),
  layout: readPreviewDashboard,
});
