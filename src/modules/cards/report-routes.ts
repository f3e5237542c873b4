import type { RouteApp } from '../../platform/http/route-app.js';
import { boardIdParams } from '../boards/index.js';
import * as report from './report.js';
import { tags } from './route-docs.js';
import { boardReport, reportQuery } from './schema.js';

/** The board report. */
export function registerReportRoutes(app: RouteApp) {
  app.get(
    '/boards/:boardId/report',
    {
      config: { scope: 'cards:read' },
      schema: {
        tags,
        summary: 'BoardReport: totals, per phase, assignee, tag and day, for cards created in the range',
        params: boardIdParams,
        querystring: reportQuery,
        response: { 200: boardReport },
      },
    },
    async (req) => report.boardReport(req.tenant, req.params.boardId, req.query),
  );
}
