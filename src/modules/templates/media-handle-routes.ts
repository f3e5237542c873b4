import type { RouteApp } from '../../platform/http/route-app.js';
import type { ChannelKit } from '../channels/index.js';
import { tags } from './route-docs.js';
import { channelParams, mediaHandle, mediaHandleInput } from './schema.js';
import * as service from './service.js';

/** The sample file a template header needs at review: uploaded to the provider, which answers its handle. */
export function registerMediaHandleRoutes(app: RouteApp, kit: () => Promise<ChannelKit>) {
  app.post(
    '/chat-channels/:channelId/templates/media-handle',
    {
      config: { scope: 'channels:write' },
      bodyLimit: 23 * 1024 * 1024,
      schema: {
        tags,
        summary: 'Upload a sample file for a template header; answers its media handle (admin)',
        description:
          'BETA: a resumable upload to the Meta app of the channel (settings.appId). Types: image/jpeg, image/png (≤ 5 MB), video/mp4, application/pdf (≤ 16 MB).',
        params: channelParams,
        body: mediaHandleInput.meta({
          examples: [{ filename: 'banner.png', mimeType: 'image/png', base64: 'iVBORw0KGgo=' }],
        }),
        response: { 200: mediaHandle },
      },
    },
    async (req) => service.uploadMediaHandle(req.tenant, await kit(), req.params.channelId, req.body),
  );
}
