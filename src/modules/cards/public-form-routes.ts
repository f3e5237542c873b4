import type { AppDeps } from '../../platform/deps.js';
import { strictBucket } from '../../platform/http/rate-limit.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { boardIdParams } from '../boards/index.js';
import { submitPublicForm } from './public-form.js';
import { tags } from './route-docs.js';
import { publicFormInput, publicFormResult } from './schema.js';
import { TRACKING_KEYS } from './table.js';

/** The public entry form's submission. */
export function registerPublicFormRoutes(app: RouteApp, deps: AppDeps) {
  app.post(
    '/boards/:boardId/public-form',
    {
      config: { auth: 'public', ...strictBucket(deps.config, 'public') },
      schema: {
        tags,
        summary:
          'Submit the entry form (public: no token, no tenant header); creates a card with creationSource form, ' +
          'its contact matched or made from the e-mail or phone field, and the consent when the checkbox is ticked',
        security: [],
        params: boardIdParams,
        body: publicFormInput,
        response: { 201: publicFormResult },
      },
    },
    async (req, reply) => {
      const { fields, consent, ...rest } = req.body;
      const tracking = Object.fromEntries(TRACKING_KEYS.flatMap((k) => (rest[k] ? [[k, rest[k]]] : [])));
      const submitter = { consent: consent === true, ip: req.ip };
      return reply
        .code(201)
        .send(await submitPublicForm(deps.db, req.params.boardId, fields, tracking, submitter));
    },
  );
}
