import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { paginatedSchema } from '../../platform/http/list-query.js';
import { idParams } from '../../platform/http/schemas.js';
import { notification, notificationQuery, notificationsRead } from './schema.js';
import * as service from './service.js';

const tags = ['Notifications'];

export const notificationRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app) => {
  app.get(
    '/notifications',
    {
      config: { scope: 'notifications:read' },
      schema: {
        tags,
        summary: "The caller's notifications, newest first",
        querystring: notificationQuery,
        response: { 200: paginatedSchema(notification) },
      },
    },
    async (req) => service.listNotifications(req.tenant, req.query),
  );

  app.post(
    '/notifications/read',
    {
      config: { scope: 'notifications:write' },
      schema: {
        tags,
        summary: 'Mark every unread notification of the caller as read',
        description:
          'Marks all of the caller’s unread notifications read at once and answers how many changed (0 when none was unread); other members’ notifications are untouched.',
        response: { 200: notificationsRead },
      },
    },
    async (req) => service.readAllNotifications(req.tenant),
  );

  app.post(
    '/notifications/:id/read',
    {
      config: { scope: 'notifications:write' },
      schema: {
        tags,
        summary: 'Mark one of the caller’s notifications as read',
        params: idParams,
        response: { 200: notification },
      },
    },
    async (req) => service.readNotification(req.tenant, req.params.id),
  );
};
