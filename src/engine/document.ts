import { GraphQLError, Kind, NoSchemaIntrospectionCustomRule, parse, specifiedRules, validate, visit } from 'graphql';
import type {
  ASTVisitor,
  DocumentNode,
  FragmentDefinitionNode,
  GraphQLSchema,
  OperationDefinitionNode,
  ValidationContext,
  ValidationRule,
} from 'graphql';
import type { DocumentLimitsConfig } from '../config.js';
import { measureDocumentCosts, measureOperationCost } from './complexity.js';
import { MAX_VALUE_NESTING, measureDocumentNesting } from './nesting.js';
import type { DocumentCosts } from './complexity.js';

/** Static limits on a document, checked before anything runs; the numbers come from the config. */
export type DocumentLimits = DocumentLimitsConfig;

/** A parsed and validated document, ready to plan; or the errors that stop it. */
export interface PreparedDocument {
  readonly errors: readonly GraphQLError[];
  readonly document?: DocumentNode;
  readonly operations: ReadonlyMap<string, OperationDefinitionNode>;
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  /** Each operation's static complexity (graphql/complexity.ts), by operation name ('' when anonymous). */
  readonly costs: ReadonlyMap<string, number>;
  /** The operations (by name) whose cost depends on their variables: priced again per request (DocumentCache.price). */
  readonly variablePriced: ReadonlySet<string>;
  /** Per-operation state that callers cache with the document (plans, compiled SQL). */
  readonly memo: Map<string, unknown>;
}

const EMPTY_MAP = new Map<never, never>();
const EMPTY_SET = new Set<never>();

/**
 * Parses and validates query strings once and keeps the result, so repeated
 * documents (the common case for scripts and integrations) skip both steps.
 * Bounded: the least recently used entry goes first.
 *
 * A document whose operation (or fragment) costs more than `maxComplexity`
 * is refused right after parsing, before validation: validation is
 * superlinear in repeated fields, and the cost bounds how many a document holds.
 */
export class DocumentCache {
  private readonly entries = new Map<string, { readonly prepared: PreparedDocument; touched: number }>();
  /** Counts lookups: an entry's `touched` is this count when it last moved to the young end. */
  private lookups = 0;
  private readonly rules: readonly ValidationRule[];

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly limits: DocumentLimits,
    private readonly maxComplexity: number,
    private readonly maxEntries = 1000,
  ) {
    this.rules = [
      ...specifiedRules,
      NoSchemaIntrospectionCustomRule,
      createDepthLimitRule(limits.maxDepth),
      createCountLimitRule('aliases', 'MAX_QUERY_ALIASES', limits.maxAliases, (node) => node.kind === Kind.FIELD && node.alias !== undefined),
      createCountLimitRule('directives', 'MAX_QUERY_DIRECTIVES', limits.maxDirectives, (node) => node.kind === Kind.DIRECTIVE),
    ];
  }

  /**
   * The prepared form of `query`, from the cache when it was seen before. A
   * hit moves its entry to the young end only when a quarter of the cache's
   * size in lookups has passed since it last moved, so the hot path skips a
   * delete and an insert per request; an entry looked up at least once in
   * every half cache's size of lookups still moves before it can be evicted.
   */
  get(query: string): PreparedDocument {
    const lookup = ++this.lookups;
    const cached = this.entries.get(query);
    if (cached !== undefined) {
      if (lookup - cached.touched > this.maxEntries / 4) {
        this.entries.delete(query);
        this.entries.set(query, cached);
        cached.touched = lookup;
      }
      return cached.prepared;
    }
    const prepared = this.prepare(query);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(query, { prepared, touched: lookup });
    return prepared;
  }

  private prepare(query: string): PreparedDocument {
    try {
      return this.prepareDocument(query);
    } catch (error) {
      // the nesting limits keep recursion shallow; should one still overflow, the client gets a word, not V8's
      if (!(error instanceof RangeError)) throw error;
      return failed([new GraphQLError('The document nests too deeply to be checked: send a flatter document.')]);
    }
  }

  private prepareDocument(query: string): PreparedDocument {
    const tooDeep = nestingError(query, this.limits.maxDepth);
    if (tooDeep) return failed([tooDeep]);
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: this.limits.maxTokens, noLocation: false });
    } catch (error) {
      const parseError =
        error instanceof GraphQLError ? withLimitWording(error, this.limits.maxTokens) : new GraphQLError(String(error));
      return failed([parseError]);
    }
    const costs = measureDocumentCosts(this.schema, document);
    const tooComplex = complexityError(costs, this.maxComplexity);
    if (tooComplex) return failed([tooComplex]);
    const errors = validate(this.schema, document, this.rules, { maxErrors: 20 });
    if (errors.length > 0) return failed(errors.map((error) => namingArgument(withoutSuggestions(explained(error)), document)));
    const operations = new Map<string, OperationDefinitionNode>();
    const fragments = new Map<string, FragmentDefinitionNode>();
    const operationCosts = new Map<string, number>();
    const variablePriced = new Set<string>();
    for (const definition of document.definitions) {
      if (definition.kind === Kind.OPERATION_DEFINITION) {
        operations.set(definition.name?.value ?? '', definition);
        if (costs.variablePriced.has(definition)) variablePriced.add(definition.name?.value ?? '');
        operationCosts.set(definition.name?.value ?? '', costs.operations.get(definition) ?? 1);
      } else if (definition.kind === Kind.FRAGMENT_DEFINITION) {
        fragments.set(definition.name.value, definition);
      }
    }
    return { errors: [], document, operations, fragments, costs: operationCosts, variablePriced, memo: new Map() };
  }

  /**
   * The cost of `operation` of `prepared` for this request: as cached, or,
   * for an operation whose list sizes come from its variables, measured with
   * the request's coerced variables; COMPLEXITY_LIMIT_EXCEEDED over the limit.
   */
  price(prepared: PreparedDocument, operation: OperationDefinitionNode, variables: Readonly<Record<string, unknown>>): number | GraphQLError {
    const name = operation.name?.value ?? '';
    if (!prepared.variablePriced.has(name)) return prepared.costs.get(name) ?? 1;
    const cost = measureOperationCost(this.schema, operation, prepared.fragments, variables);
    return cost > this.maxComplexity ? operationTooComplex(operation, cost, this.maxComplexity) : cost;
  }
}

function failed(errors: readonly GraphQLError[]): PreparedDocument {
  return { errors, operations: EMPTY_MAP, fragments: EMPTY_MAP, costs: EMPTY_MAP, variablePriced: EMPTY_SET, memo: new Map() };
}

/** The first operation (or unused fragment) over the limit, as COMPLEXITY_LIMIT_EXCEEDED. */
function complexityError(costs: DocumentCosts, limit: number): GraphQLError | undefined {
  for (const [operation, cost] of costs.operations) {
    if (cost > limit) return operationTooComplex(operation, cost, limit);
  }
  for (const [fragment, cost] of costs.fragments) {
    if (cost > limit) {
      return new GraphQLError(`fragment "${fragment.name.value}" has complexity ${cost}, which exceeds the limit of ${limit}`, {
        nodes: fragment,
        extensions: { code: 'COMPLEXITY_LIMIT_EXCEEDED', cost, limit },
      });
    }
  }
  return undefined;
}

/** graphql-js gives up on documents that take too much work to check for conflicting fields, saying only "Validation aborted." */
function explained(error: GraphQLError): GraphQLError {
  if (error.message !== 'Validation aborted.') return error;
  return new GraphQLError('The document is too costly to validate: it selects fields of the same name too many times. Select each field once.');
}

/**
 * Removes "Did you mean …?" hints: they would reveal names of a schema that
 * is not introspectable.
 */
export function stripSuggestions(message: string): string {
  return message.replace(/\s*Did you mean [^?]*\?/g, '');
}

function withoutSuggestions(error: GraphQLError): GraphQLError {
  const message = stripSuggestions(error.message);
  if (message === error.message) return error;
  return new GraphQLError(message, { nodes: error.nodes ?? null, source: error.source ?? null, positions: error.positions ?? null });
}

/**
 * A literal argument value the scalar refused becomes BAD_USER_INPUT naming
 * the argument, e.g. `Argument "UUID" has an invalid value "abc": Expected a UUID…`.
 */
function namingArgument(error: GraphQLError, document: DocumentNode): GraphQLError {
  const match = /^Expected value of type "[^"]+", found (.*?); (.*)$/s.exec(error.message);
  const valueNode = error.nodes?.[0];
  if (!match || !valueNode?.loc) return error;
  const start = valueNode.loc.start;
  let argument: string | undefined;
  visit(document, {
    Argument(node) {
      if (node.value.loc && node.value.loc.start <= start && start < node.value.loc.end) argument = node.name.value;
    },
  });
  if (argument === undefined) return error;
  return new GraphQLError(`Argument "${argument}" has an invalid value ${match[1]}: ${match[2]}`, {
    nodes: error.nodes ?? null,
    extensions: { code: 'BAD_USER_INPUT', argument },
  });
}

/**
 * A document whose values nest deeper than MAX_VALUE_NESTING, or whose
 * selection sets nest deeper than twice the depth limit (an inline fragment
 * adds a level that is no field), refused from its text before it is parsed.
 */
function nestingError(query: string, maxDepth: number): GraphQLError | undefined {
  const limits = { selections: 2 * maxDepth + 2, values: MAX_VALUE_NESTING };
  const nesting = measureDocumentNesting(query, limits);
  if (nesting.values > limits.values) {
    return new GraphQLError(`Syntax Error: The document nests list and object values deeper than the limit of ${MAX_VALUE_NESTING} levels.`, {
      extensions: { limit: 'MAX_VALUE_NESTING', limitValue: MAX_VALUE_NESTING },
    });
  }
  if (nesting.selections > limits.selections) {
    return new GraphQLError(`The operation is nested deeper than the limit of ${maxDepth} levels.`, {
      extensions: limitExtensions('MAX_QUERY_DEPTH', maxDepth),
    });
  }
  return undefined;
}

function withLimitWording(error: GraphQLError, maxTokens: number): GraphQLError {
  // graphql-js words it "Document contains more that N tokens. Parsing aborted."
  if (!/more that \d+ tokens|token limit/i.test(error.message)) return error;
  return new GraphQLError(`Syntax Error: The document has more than the limit of ${maxTokens} tokens.`, {
    source: error.source ?? null,
    positions: error.positions ?? null,
    extensions: limitExtensions('MAX_QUERY_TOKENS', maxTokens),
  });
}

/**
 * Fails operations nested deeper than `maxDepth` fields (fragments counted
 * where they are spread). Each fragment is measured once, so a document that
 * spreads fragments many times over is measured in linear time.
 */
function createDepthLimitRule(maxDepth: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of context.getDocument().definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    const measure = createDepthMeasure(fragments, maxDepth + 1);
    return {
      OperationDefinition(operation) {
        if (measure(operation.selectionSet.selections) > maxDepth) {
          context.reportError(
            new GraphQLError(`The operation is nested deeper than the limit of ${maxDepth} levels.`, {
              nodes: operation,
              extensions: limitExtensions('MAX_QUERY_DEPTH', maxDepth),
            }),
          );
        }
        return false;
      },
    };
  };
}

type Selections = OperationDefinitionNode['selectionSet']['selections'];

/** How many field levels a selection holds, counted up to `cap` (enough to know it is too deep). */
function createDepthMeasure(fragments: ReadonlyMap<string, FragmentDefinitionNode>, cap: number) {
  const fragmentDepths = new Map<string, number>();
  const measure = (selections: Selections, budget: number): number => {
    let max = 0;
    for (const selection of selections) {
      if (max >= budget) return max;
      if (selection.kind === Kind.FIELD) {
        const below = selection.selectionSet ? measure(selection.selectionSet.selections, budget - 1) : 0;
        max = Math.max(max, 1 + below);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        max = Math.max(max, measure(selection.selectionSet.selections, budget));
      } else {
        max = Math.max(max, fragmentDepth(selection.name.value));
      }
    }
    return max;
  };
  const fragmentDepth = (name: string): number => {
    const known = fragmentDepths.get(name);
    if (known !== undefined) return known;
    // a cycle is reported by its own rule; inside it, count nothing
    fragmentDepths.set(name, 0);
    const fragment = fragments.get(name);
    const depth = fragment ? measure(fragment.selectionSet.selections, cap) : 0;
    fragmentDepths.set(name, depth);
    return depth;
  };
  return (selections: Selections) => measure(selections, cap);
}

/** Fails documents with more than `limit` nodes of a kind (aliases, directives). */
function createCountLimitRule(
  what: string,
  setting: string,
  limit: number,
  counts: (node: { kind: Kind; alias?: unknown }) => boolean,
): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    let count = 0;
    let reported = false;
    const visit = (node: { kind: Kind; alias?: unknown }) => {
      if (reported || !counts(node)) return;
      count += 1;
      if (count > limit) {
        reported = true;
        context.reportError(
          new GraphQLError(`The document has more than the limit of ${limit} ${what}.`, {
            extensions: limitExtensions(setting, limit),
          }),
        );
      }
    };
    return { Field: visit, Directive: visit };
  };
}

/** Names the exceeded limit for clients: the setting that holds it and its value. */
function limitExtensions(setting: string, value: number): Record<string, unknown> {
  return { limit: setting, limitValue: value };
}

function operationTooComplex(operation: OperationDefinitionNode, cost: number, limit: number): GraphQLError {
  return new GraphQLError(`operation has complexity ${cost}, which exceeds the limit of ${limit}`, {
    nodes: operation,
    extensions: { code: 'COMPLEXITY_LIMIT_EXCEEDED', cost, limit },
  });
}
