// Command fuelfloor is the performance floor for fuel-service: the three
// requests of the load run (GET a vehicle, GET a vehicle's refuels, POST a
// refuel) served by plain net/http and a pgx pool running the same SQL the
// service runs, with no framework, validation layer or ORM. fuel-service is
// measured against it; it is not a service to deploy.
//
//	DATABASE_URL=postgres://... FLOOR_ADDR=127.0.0.1:8083 fuelfloor
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"
)

func main() {
	if err := run(context.Background(), os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "fuelfloor:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, getenv func(string) string) error {
	cfg, err := pgxpool.ParseConfig(getenv("DATABASE_URL"))
	if err != nil {
		return err
	}
	cfg.MaxConns = 32
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	addr := getenv("FLOOR_ADDR")
	if addr == "" {
		addr = "127.0.0.1:8083"
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/vehicles/{id}", func(w http.ResponseWriter, r *http.Request) { getVehicle(w, r, pool) })
	mux.HandleFunc("GET /api/refuels", func(w http.ResponseWriter, r *http.Request) { listRefuels(w, r, pool) })
	mux.HandleFunc("POST /api/refuels", func(w http.ResponseWriter, r *http.Request) { createRefuel(w, r, pool) })
	fmt.Println("fuelfloor listening on", addr)
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	return srv.ListenAndServe()
}

type vehicle struct {
	ID              int64           `json:"id"`
	Name            string          `json:"name"`
	Brand           string          `json:"brand"`
	Model           string          `json:"model"`
	PlateNumber     string          `json:"plate_number"`
	FuelType        string          `json:"fuel_type"`
	TankCapacity    decimal.Decimal `json:"tank_capacity"`
	CurrentOdometer decimal.Decimal `json:"current_odometer"`
	DefaultVehicle  bool            `json:"default_vehicle"`
	CreatedAt       time.Time       `json:"created_at"`
	UpdatedAt       time.Time       `json:"updated_at"`
}

type refuel struct {
	ID             int64           `json:"id"`
	VehicleID      int64           `json:"vehicle_id"`
	RefuelTime     time.Time       `json:"refuel_time"`
	Odometer       decimal.Decimal `json:"odometer"`
	FuelType       string          `json:"fuel_type"`
	Energy         string          `json:"energy"`
	Liters         decimal.Decimal `json:"liters"`
	TotalAmount    decimal.Decimal `json:"total_amount"`
	PricePerLiter  decimal.Decimal `json:"price_per_liter"`
	StationName    string          `json:"station_name"`
	IsFull         bool            `json:"is_full"`
	MissedPrevious bool            `json:"missed_previous"`
	Remark         string          `json:"remark"`
	CreatedAt      time.Time       `json:"created_at"`
	UpdatedAt      time.Time       `json:"updated_at"`
}

func init() { decimal.MarshalJSONWithoutQuotes = true }

func scanRefuel(row pgx.Row, r *refuel) error {
	var odo, liters, amount, price string
	if err := row.Scan(&r.ID, &r.VehicleID, &r.RefuelTime, &odo, &r.FuelType, &r.Energy, &liters, &amount, &price,
		&r.StationName, &r.IsFull, &r.MissedPrevious, &r.Remark, &r.CreatedAt, &r.UpdatedAt); err != nil {
		return err
	}
	r.Odometer, r.Liters = decimal.RequireFromString(odo), decimal.RequireFromString(liters)
	r.TotalAmount, r.PricePerLiter = decimal.RequireFromString(amount), decimal.RequireFromString(price)
	return nil
}

func getVehicle(w http.ResponseWriter, r *http.Request, pool *pgxpool.Pool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		http.Error(w, `{"code":"INVALID_ARGUMENT"}`, 400)
		return
	}
	var v vehicle
	var capacity, odo string
	err = pool.QueryRow(r.Context(), `SELECT id, name, brand, model, plate_number, fuel_type, tank_capacity::text, current_odometer::text, default_vehicle, created_at, updated_at FROM vehicles WHERE id = $1 LIMIT 1`, id).
		Scan(&v.ID, &v.Name, &v.Brand, &v.Model, &v.PlateNumber, &v.FuelType, &capacity, &odo, &v.DefaultVehicle, &v.CreatedAt, &v.UpdatedAt)
	if err != nil {
		http.Error(w, `{"code":"NOT_FOUND"}`, 404)
		return
	}
	v.TankCapacity, v.CurrentOdometer = decimal.RequireFromString(capacity), decimal.RequireFromString(odo)
	writeJSON(w, v)
}

func listRefuels(w http.ResponseWriter, r *http.Request, pool *pgxpool.Pool) {
	id, err := strconv.ParseInt(r.URL.Query().Get("vehicle_id"), 10, 64)
	if err != nil {
		http.Error(w, `{"code":"INVALID_ARGUMENT"}`, 400)
		return
	}
	rows, err := pool.Query(r.Context(), `SELECT id, vehicle_id, refuel_time, odometer::text, fuel_type, energy, liters::text, total_amount::text, price_per_liter::text, station_name, is_full, missed_previous, remark, created_at, updated_at FROM refuels WHERE vehicle_id = $1 ORDER BY refuel_time DESC, id DESC`, id)
	if err != nil {
		http.Error(w, `{"code":"INTERNAL"}`, 500)
		return
	}
	defer rows.Close()
	out := []refuel{}
	for rows.Next() {
		var rf refuel
		if err := scanRefuel(rows, &rf); err != nil {
			http.Error(w, `{"code":"INTERNAL"}`, 500)
			return
		}
		out = append(out, rf)
	}
	if rows.Err() != nil {
		http.Error(w, `{"code":"INTERNAL"}`, 500)
		return
	}
	writeJSON(w, out)
}

func createRefuel(w http.ResponseWriter, r *http.Request, pool *pgxpool.Pool) {
	var in refuel
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&in); err != nil || !in.Liters.IsPositive() {
		http.Error(w, `{"code":"INVALID_ARGUMENT"}`, 400)
		return
	}
	in.PricePerLiter = in.TotalAmount.DivRound(in.Liters, 4)
	if in.Energy == "" {
		// The vehicle's default energy, read as the service reads it.
		var fuelType string
		if err := pool.QueryRow(r.Context(), `SELECT fuel_type FROM vehicles WHERE id = $1`, in.VehicleID).Scan(&fuelType); err != nil {
			http.Error(w, `{"code":"INVALID_ARGUMENT"}`, 400)
			return
		}
		in.Energy = defaultEnergy(fuelType)
	}
	in.CreatedAt = time.Now().UTC().Truncate(time.Microsecond)
	in.UpdatedAt = in.CreatedAt
	err := pool.QueryRow(r.Context(), `INSERT INTO refuels (vehicle_id, refuel_time, odometer, fuel_type, energy, liters, total_amount, price_per_liter, station_name, is_full, missed_previous, remark, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id`,
		in.VehicleID, in.RefuelTime, in.Odometer.String(), in.FuelType, in.Energy, in.Liters.String(), in.TotalAmount.String(), in.PricePerLiter.String(),
		in.StationName, in.IsFull, in.MissedPrevious, in.Remark, in.CreatedAt, in.UpdatedAt).Scan(&in.ID)
	if err != nil {
		http.Error(w, `{"code":"INVALID_ARGUMENT"}`, 400)
		return
	}
	writeJSON(w, in)
}

// defaultEnergy is fuel.DefaultEnergy, repeated: the floor imports nothing
// of the service.
func defaultEnergy(vehicleFuelType string) string {
	switch vehicleFuelType {
	case "diesel":
		return "diesel"
	case "electric":
		return "electricity"
	}
	return "gasoline"
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(v)
}
