import { useQuery } from '@tanstack/react-query';
import { client, unwrap } from '../../api';
import { wordsOf } from '../../lib/area-words';
import * as catalogue from '../../words/distribution';

export const dw = wordsOf(catalogue);
export type DistributionWord = keyof typeof catalogue.ptBR;

export const STRATEGIES = ['round_robin', 'weighted', 'least_open'] as const;
export type Strategy = (typeof STRATEGIES)[number];
export const strategyWord = (s: string) => dw(`st_${s}` as DistributionWord);

export interface QueueMember {
  membership: { documentId: string };
  weight: number;
  active: boolean;
  assignedCount: number;
  lastAssignedAt: string | null;
}
export interface Queue {
  documentId: string;
  name: string;
  board: { documentId: string; name: string } | null;
  inbox: { id: number; name: string } | null;
  strategy: Strategy;
  active: boolean;
  members: QueueMember[];
  createdAt: string;
}
export interface Member {
  documentId: string;
  role: 'owner' | 'admin' | 'member' | 'viewer';
  user: { username: string; email: string; name?: string | null };
}

/** The organization's members (first 100), under the key the other member pickers use. */
export function useMemberships() {
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

/** The chat inboxes (BETA in the API; none when the plan has no inbox). */
export function useInboxes() {
  return useQuery({
    queryKey: ['inboxes'],
    retry: false,
    queryFn: async () =>
      (await unwrap(client.GET('/api/inboxes'))).data as unknown as { id: number; name: string }[],
  });
}
