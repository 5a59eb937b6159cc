// The Fastify routes declared with `config: { credit402 }`: priced by the gate when Fastify declares them, one gated route per method.
import type { RouteOptions } from 'fastify';
import type { Gate, GatedRoute } from '../gate/index.ts';
import type { RouteConfig } from '../protocol/types.ts';
import { keyPathOf } from './route-key-path.ts';

/** The gated routes of one route declaration, by method. */
export type PricedMethods = ReadonlyMap<string, GatedRoute>;

/** The route of `method` in a declaration: its own, else for HEAD the GET route (CR-4.8). */
export function routeForMethod(priced: PricedMethods, method: string): GatedRoute | undefined {
  return priced.get(method) ?? (method === 'HEAD' ? priced.get('GET') : undefined);
}

/** Prices route declarations of one gate as Fastify's `onRoute` hands them over. */
export interface RoutePricing {
  /**
   * The gated routes of a declaration with `config.credit402` (keys `<METHOD> <url>`, the url with its prefix and in
   * the route-key syntax when it has that shape: `/users/:id(^.+$)` is keyed `/users/:id`; see route-key-path.ts),
   * undefined without it. Throws a Credit402ConfigError when the configuration is invalid. The HEAD
   * route Fastify adds for a GET route shares that route's configuration and is priced as that GET route.
   */
  declare(route: Pick<RouteOptions, 'method' | 'url' | 'config'>): PricedMethods | undefined;
}

/** The route pricing of `gate`, for one registration of the plugin. */
export function createRoutePricing(gate: Gate): RoutePricing {
  // Fastify declares the HEAD route of a GET route right after it, with the same `config`.
  let lastGet: { url: string; config: RouteConfig; route: GatedRoute } | undefined;
  return {
    declare({ method, url, config: routeConfig }) {
      const config = (routeConfig as { credit402?: RouteConfig } | undefined)?.credit402;
      if (config === undefined) return undefined;
      const priced = new Map<string, GatedRoute>();
      const methods = [method].flat();
      // GET first, so that a HEAD declared beside it is priced as it.
      for (const each of [...methods.filter((name) => name !== 'HEAD'), ...methods.filter((name) => name === 'HEAD')]) {
        const route = each === 'HEAD' && lastGet?.url === url && lastGet.config === config ? lastGet.route : gate.defineRoute(`${each} ${keyPathOf(url)}`, config);
        priced.set(each, route);
        if (each === 'GET') lastGet = { url, config, route };
      }
      return priced;
    },
  };
}
