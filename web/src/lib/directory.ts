import { useQuery } from '@tanstack/react-query';
import { client, unwrap } from '../api';

/**
 * The organization's people and teams as pickers show them (contacts' owner and team, task assignees, segment
 * conditions): one cached read each, shared by every page that picks someone.
 */

export interface Member {
  documentId: string;
  role: 'owner' | 'admin' | 'member' | 'viewer';
  user: { username: string; email: string; name?: string | null };
}
export interface Team {
  documentId: string;
  name: string;
}

/** The organization's members (first 100), cached under the key the other member pickers use. */
export function useMembers() {
  return useQuery({
    queryKey: ['memberships'],
    staleTime: 60_000,
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/memberships', { params: { query: { pagination: { pageSize: 100 } } as never } }),
        )
      ).data as unknown as Member[],
  });
}

/** The organization's teams (first 100, by name). */
export function useTeams() {
  return useQuery({
    queryKey: ['teams', 'all'],
    staleTime: 60_000,
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/teams', {
            params: { query: { pagination: { pageSize: 100 }, sort: 'name:asc' } as never },
          }),
        )
      ).data as unknown as Team[],
  });
}
