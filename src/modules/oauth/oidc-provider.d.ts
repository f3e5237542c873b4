/** The parts of oidc-provider 9 this module uses (the package ships no type declarations). */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export type AdapterPayload = Record<string, any>;
  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export interface Interaction {
    uid: string;
    params: Record<string, any>;
    prompt: { name: string; details: Record<string, any> };
    grantId?: string;
    session?: { accountId?: string };
    result?: Record<string, any>;
    returnTo: string;
    exp: number;
    save(ttl: number): Promise<string>;
  }

  export interface Grant {
    jti: string;
    accountId: string;
    clientId: string;
    resources?: Record<string, string>;
    iat?: number;
    addResourceScope(resource: string, scope: string): void;
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
    destroy(): Promise<void>;
  }

  export interface AccessToken {
    accountId: string;
    clientId: string;
    grantId: string;
    aud?: string | string[];
    scope?: string;
    isValid: boolean;
    isExpired: boolean;
    exp: number;
  }

  export interface Client {
    clientId: string;
    clientName?: string;
    clientUri?: string;
    logoUri?: string;
    metadata(): Record<string, any>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, any>);
    issuer: string;
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionResult(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, any>,
    ): Promise<string>;
    on(event: string, listener: (...args: any[]) => void): this;
    use(middleware: (ctx: any, next: () => Promise<void>) => Promise<void>): this;
    Grant: {
      new (fields: { accountId: string; clientId: string }): Grant;
      find(id: string): Promise<Grant | undefined>;
    };
    AccessToken: { find(value: string): Promise<AccessToken | undefined> };
    Client: { find(id: string): Promise<Client | undefined> };
    Interaction: { find(id: string): Promise<Interaction | undefined> };
  }

  export const errors: Record<string, new (description?: string, detail?: string) => Error>;
}
