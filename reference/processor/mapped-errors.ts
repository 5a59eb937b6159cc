// A processor's call to its API, whatever it throws mapped to the error the processor reports (the Stripe processors' PaymentError).

/** Resolves what `call` resolves; throws `map(error)` for whatever `call` throws or rejects with. */
export async function mappingErrors<T>(call: () => Promise<T>, map: (error: unknown) => Error): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw map(error);
  }
}
