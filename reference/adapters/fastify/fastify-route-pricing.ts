// The Fastify routes declared with `config: { credit402 }`: priced by the gate when Fastify declares them, one gated route per method.
import type { RouteOptions } from 'fastify';
import type { Gate, GatedRoute } from '../../gate/index.ts';
import type { RouteConfig } from '../../protocol/types.ts';
import { keyPathOf } from '../route-key-path.ts';

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
   * undefined without it. Throws a Credit402ConfigError when the configuration is invalid. A HEAD route declared with
   * the very configuration of a GET route of its url (the HEAD route Fastify exposes for a GET route shares it) is
   * priced as that GET route, whichever of the two is declared first; any other HEAD route is priced as itself.
   */
  declare(route: Pick<RouteOptions, 'method' | 'url' | 'config'>): PricedMethods | undefined;
}

/** What a url has had declared so far: its GET routes by configuration, and the HEAD declarations that priced HEAD as itself. */
interface Declared {
  gets: Map<RouteConfig, GatedRoute>;
  heads: Array<{ config: RouteConfig; priced: Map<string, GatedRoute> }>;
}

/** The route pricing of `gate`, for one registration of the plugin. */
export function createRoutePricing(gate: Gate): RoutePricing {
  const byUrl = new Map<string, Declared>();
  return {
    declare({ method, url, config: routeConfig }) {
      const config = (routeConfig as { credit402?: RouteConfig } | undefined)?.credit402;
      if (config === undefined) return undefined;
      const declared: Declared = byUrl.get(url) ?? { gets: new Map(), heads: [] };
      const priced = new Map<string, GatedRoute>();
      const methods = [method].flat();
      for (const each of methods) if (each !== 'HEAD') priced.set(each, gate.defineRoute(`${each} ${keyPathOf(url)}`, config));
      const get = priced.get('GET');
      if (get !== undefined) {
        declared.gets.set(config, get);
        // A HEAD route declared earlier with this configuration follows this GET route from now on.
        for (const head of declared.heads.filter((each) => each.config === config)) head.priced.set('HEAD', get);
        declared.heads = declared.heads.filter((each) => each.config !== config);
      }
      if (methods.includes('HEAD')) {
        const shared = get ?? declared.gets.get(config);
        priced.set('HEAD', shared ?? gate.defineRoute(`HEAD ${keyPathOf(url)}`, config));
        if (shared === undefined) declared.heads.push({ config, priced });
      }
      byUrl.set(url, declared);
      return priced;
    },
  };
}
