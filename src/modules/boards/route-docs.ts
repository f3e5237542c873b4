import { z } from 'zod';
import { paginationSchema } from '../../platform/http/list-query.js';

/** What the board route groups share: their OpenAPI tag, and the query of a list that only pages. */
export const tags = ['Boards'];
export const pageQuery = z.strictObject({ pagination: paginationSchema.optional() });
