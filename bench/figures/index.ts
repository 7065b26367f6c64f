import type { Figure } from '../lib/figure.js';
import { getFigure } from './get.js';
import { putFigure } from './put.js';
import { documentsCreateFigure, documentsGetFigure, documentsListFigure } from './documents.js';
import { eventsGrowthFigure } from './events-growth.js';
import { eventsPageFigure } from './events-page.js';
import { eventsPullFigure } from './events-pull.js';
import { daemonLiveFigure, daemonRssFigure, daemonScaleFigure } from './daemon.js';
import { applyFigure, documentsApplyFigure } from './apply.js';
import { documentsPlanFigure, planFigure, planGrowthFigure } from './plan.js';
import { documentsValidateFigure, validateFigure } from './validate.js';

/**
 * Every figure of the issue, in table order. `npm run bench -- <name>` runs one. A figure whose component has not
 * landed throws NotMeasurableYet and is listed as not yet measured.
 */
export const FIGURES: readonly Figure[] = [
  getFigure,
  putFigure,
  documentsCreateFigure,
  documentsGetFigure,
  documentsListFigure,
  validateFigure,
  planFigure,
  applyFigure,
  documentsValidateFigure,
  documentsPlanFigure,
  documentsApplyFigure,
  eventsPageFigure,
  eventsPullFigure,
  daemonLiveFigure,
  daemonRssFigure,
  daemonScaleFigure,
  planGrowthFigure,
  eventsGrowthFigure,
];
